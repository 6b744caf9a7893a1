package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"
)

func TestFetchAt(t *testing.T) {
	content := pattern(1<<20, 3)
	s := newTestServer(t, content)
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// In the head, and in a missing block: one request each, for exactly
	// the bytes asked; a second fetch of the same bytes asks again.
	p := make([]byte, 1000)
	for _, off := range []int64{10, 600 << 10, 600 << 10} {
		if n, err := f.FetchAt(p, off); n != len(p) || err != nil {
			t.Fatalf("FetchAt(%d): %d, %v", off, n, err)
		}
		if !bytes.Equal(p, content[off:off+1000]) {
			t.Fatalf("FetchAt(%d): wrong bytes", off)
		}
	}
	want := []string{"bytes=0-262143", "bytes=10-1009", "bytes=614400-615399", "bytes=614400-615399"}
	if fmt.Sprint(s.requestRanges()) != fmt.Sprint(want) {
		t.Errorf("ranges %q, want %q", s.requestRanges(), want)
	}
	// Not cached: a ReadAt of that block asks for it.
	if _, err := f.ReadAt(p[:10], 600<<10); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.counts(); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
	// Past the end.
	if n, err := f.FetchAt(p, int64(len(content))-10); n != 10 || err != io.EOF {
		t.Errorf("FetchAt at the end: %d, %v; want 10, EOF", n, err)
	}
	if _, err := f.FetchAt(p, int64(len(content))); err != io.EOF {
		t.Errorf("FetchAt past the end: %v", err)
	}
	if _, err := f.FetchAt(p, -1); err == nil {
		t.Error("FetchAt(-1): no error")
	}
	f.Close()
	if _, err := f.FetchAt(p, 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("FetchAt after Close: %v", err)
	}
}
