package xzenc

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	mxz "github.com/mikelolasagasti/xz"
)

// writeStream encodes data through Reset, Write (in pieces of the given
// size) and Close.
func writeStream(t testing.TB, e *Encoder, data []byte, dict int, hint int64, piece int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := e.Reset(&buf, dict, hint); err != nil {
		t.Fatal(err)
	}
	for p := data; len(p) > 0; {
		k := min(piece, len(p))
		if n, err := e.Write(p[:k]); n != k || err != nil {
			t.Fatalf("Write: %d of %d bytes, %v", n, k, err)
		}
		p = p[k:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeXi2(t testing.TB, z []byte) []byte {
	t.Helper()
	r, err := mxz.NewReader(bytes.NewReader(z), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWriteMatchesEncode: up to the window, writing in pieces of any size
// (and with any size hint) gives the very bytes Encode gives; beyond it
// the stream still round-trips.
func TestWriteMatchesEncode(t *testing.T) {
	var e, w Encoder
	for name, data := range corpus(t) {
		want := encode(t, &e, data, 1<<20)
		for _, c := range []struct {
			hint  int64
			piece int
		}{{int64(len(data)), 1 << 30}, {0, 4093}, {1 << 40, 100 << 10}} {
			got := writeStream(t, &w, data, 1<<20, c.hint, c.piece)
			if len(data) <= window && !bytes.Equal(got, want) {
				t.Errorf("%s, hint %d, pieces of %d: %d bytes differ from Encode's %d", name, c.hint, c.piece, len(got), len(want))
			}
			if back := decodeXi2(t, got); !bytes.Equal(back, data) {
				t.Fatalf("%s, hint %d, pieces of %d: decodes to %d bytes", name, c.hint, c.piece, len(back))
			}
		}
	}
}

// longInput is Go source with stretches of random bytes, n bytes.
func longInput(n int) []byte {
	data := gocorpus.Source(n)
	rng := rand.New(rand.NewPCG(7, 8))
	for off := 3 << 20; off+300<<10 < n; off += 5 << 20 {
		for i := range 300 << 10 {
			data[off+i] = byte(rng.Uint32())
		}
	}
	return data
}

// TestWriteLongStream: a stream several windows long, written in pieces,
// round-trips through the Go decoder and xz(1), holds no more than the
// window, and compresses within 0.5% of Encode over the whole input at
// once (the window's slides end a chunk each).
func TestWriteLongStream(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 2 x 13 MiB")
	}
	data := longInput(13 << 20)
	var e Encoder
	z := writeStream(t, &e, data, 8<<20, int64(len(data)), 32<<10)
	if cap(e.win) > window {
		t.Errorf("window of %d bytes", cap(e.win))
	}
	if got := decodeXi2(t, z); !bytes.Equal(got, data) {
		t.Fatalf("decodes to %d of %d bytes", len(got), len(data))
	}
	if xz, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command(xz, "-d", "-c")
		cmd.Stdin = bytes.NewReader(z)
		if got, err := cmd.Output(); err != nil || !bytes.Equal(got, data) {
			t.Errorf("xz -d: %d bytes, %v", len(got), err)
		}
	}
	whole := encode(t, &e, data, 8<<20)
	t.Logf("%d bytes -> %d written, %d encoded whole", len(data), len(z), len(whole))
	if len(z) > len(whole)+len(whole)/200 {
		t.Errorf("%d bytes, more than 0.5%% above Encode's %d", len(z), len(whole))
	}
}

// TestRebase: positions + 1 move back by the shift, and those that leave
// the window become 0, "none", as 0 stays.
func TestRebase(t *testing.T) {
	tab := []uint32{0, 1, 2<<20 - 1, 2 << 20, 2<<20 + 1, 3 << 20, 1<<32 - 1}
	rebase(tab, 2<<20)
	want := []uint32{0, 0, 0, 0, 1, 1 << 20, 1<<32 - 1 - 2<<20}
	for i := range tab {
		if tab[i] != want[i] {
			t.Errorf("rebase: %v, want %v", tab, want)
			break
		}
	}
}

// TestEncodeBeyondInPlace: data too long to be read in place (4 GiB -
// 2 bytes; lowered here) goes through the window, as if given to Write.
func TestEncodeBeyondInPlace(t *testing.T) {
	data := longInput(6 << 20)
	var e Encoder
	want := writeStream(t, &e, data, 1<<20, 0, 1<<20)
	defer func(old int64) { maxInPlace = old }(maxInPlace)
	maxInPlace = 5 << 20
	if got := encode(t, &e, data, 1<<20); !bytes.Equal(got, want) {
		t.Errorf("%d bytes, not the %d Write gives", len(got), len(want))
	}
}

// failWriter accepts n bytes, then fails.
type failWriter struct{ n int }

var errFail = errors.New("write failed")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errFail
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteError: the writer's error comes back from Write (once the
// window is full and chunks go out) and from Close, and the Encoder then
// serves a new stream.
func TestWriteError(t *testing.T) {
	data := longInput(6 << 20)
	var e Encoder
	if err := e.Reset(&failWriter{n: 100}, 1<<20, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Write(data); !errors.Is(err, errFail) {
		t.Errorf("Write: %v", err)
	}
	if err := e.Close(); !errors.Is(err, errFail) {
		t.Errorf("Close: %v", err)
	}
	if err := e.Reset(&failWriter{n: 5}, 1<<20, 0); !errors.Is(err, errFail) {
		t.Errorf("Reset on a writer failing in the header: %v", err)
	}
	small := data[:100<<10]
	if got := decodeXi2(t, writeStream(t, &e, small, 1<<20, 0, 1000)); !bytes.Equal(got, small) {
		t.Error("no round trip after errors")
	}
}
