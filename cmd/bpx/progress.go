package main

import (
	"io"

	"github.com/schollz/progressbar/v3"
)

// progress is a byte-counting progress bar on stderr. It draws only when
// stderr is a terminal and the user did not pass -q; otherwise it is a
// no-op, so scripts and pipes see nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a progress bar for total bytes (or -1 if unknown).
func newProgress(e *env, quiet bool, total int64, what string) *progress {
	if quiet || !e.Terminal {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(e.Stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100e6),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionOnCompletion(nil),
	)}
}

// Add records n more bytes done.
func (p *progress) Add(n int64) {
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

// Reader wraps r so that reading advances the bar.
func (p *progress) Reader(r io.Reader) io.Reader {
	if p.bar == nil {
		return r
	}
	return &progressReader{r: r, p: p}
}

// Done finishes and clears the bar.
func (p *progress) Done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

type progressReader struct {
	r io.Reader
	p *progress
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Add(int64(n))
	return n, err
}
