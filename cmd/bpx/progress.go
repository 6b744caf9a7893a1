package main

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress is a byte-counting progress line on stderr. It draws only when
// stderr is a terminal and the user did not pass -q; otherwise it is a
// no-op, so scripts and pipes see nothing. It is safe for concurrent use.
//
// It replaces github.com/schollz/progressbar/v3, whose dependencies
// (net/http, crypto/tls, regexp, ...) cost every bpx invocation about 8 ms
// of start-up, half of what "bpx ls" may take in all.
type progress struct {
	w     io.Writer // nil: disabled
	what  string
	total int64 // -1 if unknown
	start time.Time

	done atomic.Int64
	next atomic.Int64 // unix nanoseconds of the earliest next redraw

	mu     sync.Mutex // serializes drawing
	drawn  bool
	closed bool
}

// progressEvery is the redraw interval.
const progressEvery = 100 * time.Millisecond

// newProgress returns a progress line for total bytes (or -1 if unknown).
func newProgress(e *env, quiet bool, total int64, what string) *progress {
	if quiet || !e.Terminal {
		return &progress{}
	}
	p := &progress{w: e.Stderr, what: what, total: total, start: time.Now()}
	p.next.Store(p.start.Add(progressEvery).UnixNano())
	return p
}

// Add records n more bytes done and redraws at most every progressEvery.
func (p *progress) Add(n int64) {
	if p.w == nil {
		return
	}
	p.done.Add(n)
	now := time.Now().UnixNano()
	next := p.next.Load()
	if now < next || !p.next.CompareAndSwap(next, now+int64(progressEvery)) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.draw()
	}
}

// draw writes the line over the previous one; p.mu is held.
func (p *progress) draw() {
	done := p.done.Load()
	line := p.what + " " + formatBytes(done)
	if p.total > 0 {
		pct := min(100*done/p.total, 100)
		line = fmt.Sprintf("%s %3d%% %s / %s", p.what, pct, formatBytes(done), formatBytes(p.total))
	}
	if s := time.Since(p.start).Seconds(); s > 0 {
		line += " (" + formatBytes(int64(float64(done)/s)) + "/s)"
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

// formatBytes prints n with a binary unit, e.g. "12.3 MiB".
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Done clears the line; later Adds draw nothing.
func (p *progress) Done() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn && !p.closed {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.closed = true
}
