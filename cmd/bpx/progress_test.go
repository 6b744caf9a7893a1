package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

func TestProgressQuietOrPipeDrawsNothing(t *testing.T) {
	var buf bytes.Buffer
	for _, e := range []*env{{Stderr: &buf, Terminal: false}, {Stderr: &buf, Terminal: true}} {
		p := newProgress(e, e.Terminal, 100, "packing") // quiet when on a terminal
		p.Add(50)
		p.Done()
	}
	if buf.Len() != 0 {
		t.Fatalf("drew %q", buf.String())
	}
}

func TestProgressDrawsAndClears(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&env{Stderr: &buf, Terminal: true}, false, 4<<20, "packing")
	p.next.Store(0) // draw on the next Add
	p.Add(1 << 20)
	if got := buf.String(); !strings.Contains(got, "packing  25% 1.0 MiB / 4.0 MiB") {
		t.Fatalf("line %q", got)
	}
	p.Done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Fatalf("not cleared: %q", buf.String())
	}
	n := buf.Len()
	p.next.Store(0)
	p.Add(1)
	if buf.Len() != n {
		t.Fatal("drew after Done")
	}
}

func TestProgressConcurrentAdds(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&env{Stderr: &buf, Terminal: true}, false, -1, "unpacking")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				p.Add(3)
			}
		})
	}
	wg.Wait()
	if got := p.done.Load(); got != 12000 {
		t.Fatalf("counted %d bytes, want 12000", got)
	}
	p.Done()
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
