package cdc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

func random(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func chunks(t testing.TB, r io.Reader, p Params) [][]byte {
	c := NewChunker(r, p, nil)
	var out [][]byte
	for {
		ch, err := c.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(ch))
	}
}

// TestVector pins the chunking function: the gear table and the masks are
// part of the package file format, and a change would make every package
// written before it look entirely changed to a pull.
func TestVector(t *testing.T) {
	data := random(1<<20, 7)
	p := Params{Min: 1 << 10, Avg: 4 << 10, Max: 16 << 10}
	h := sha256.New()
	var n int
	for _, c := range chunks(t, bytes.NewReader(data), p) {
		binary.Write(h, binary.LittleEndian, uint32(len(c)))
		n++
	}
	const want = "c8ca47f27c0271d62eec19a267f49fc88aa317ebc0b2a6df4c440ebf11606738"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("the chunking changed: %d chunks, lengths hash %s, want %s", n, got, want)
	}
}

func TestChunksCoverAndBounds(t *testing.T) {
	data := random(3<<20+123, 1)
	for _, p := range []Params{ForSize(1), {Min: 64, Avg: 256, Max: 256}, {Min: 2048, Avg: 2048, Max: 1 << 16}} {
		if err := p.Check(); err != nil {
			t.Fatal(err)
		}
		// A reader that returns a byte at a time cuts where a whole one does.
		cs := chunks(t, iotest.OneByteReader(bytes.NewReader(data)), p)
		whole := chunks(t, bytes.NewReader(data), p)
		if len(cs) != len(whole) {
			t.Fatalf("%+v: %d chunks one byte at a time, %d at once", p, len(cs), len(whole))
		}
		if got := bytes.Join(cs, nil); !bytes.Equal(got, data) {
			t.Fatalf("%+v: chunks do not make the input", p)
		}
		for i, c := range cs {
			if len(c) > p.Max || len(c) < p.Min && i != len(cs)-1 {
				t.Fatalf("%+v: chunk %d of %d bytes", p, i, len(c))
			}
		}
		if avg := len(data) / len(cs); avg < p.Avg/2 || avg > 2*p.Avg && p.Max > p.Avg {
			t.Errorf("%+v: average chunk %d bytes", p, avg)
		}
	}
}

// TestShift: bytes inserted or removed near the start leave the chunks
// after the next few cuts as they were.
func TestShift(t *testing.T) {
	p := ForSize(1 << 20)
	data := random(2<<20, 3)
	old := map[[32]byte]bool{}
	for _, c := range chunks(t, bytes.NewReader(data), p) {
		old[sha256.Sum256(c)] = true
	}
	for _, edited := range [][]byte{
		append(append(bytes.Clone(data[:5000]), "inserted bytes"...), data[5000:]...),
		append(bytes.Clone(data[:70000]), data[70100:]...),
	} {
		cs := chunks(t, bytes.NewReader(edited), p)
		var fresh int
		for _, c := range cs {
			if !old[sha256.Sum256(c)] {
				fresh += len(c)
			}
		}
		if fresh > 4*p.Max {
			t.Errorf("%d of %d bytes in new chunks after a small edit", fresh, len(edited))
		}
	}
}

func TestCheck(t *testing.T) {
	for _, p := range []Params{{}, {Min: 64, Avg: 100, Max: 200}, {Min: 32, Avg: 256, Max: 256}, {Min: 512, Avg: 256, Max: 1024}, {Min: 64, Avg: 256, Max: 128}, {Min: 64, Avg: 256, Max: MaxMax + 1}} {
		if p.Check() == nil {
			t.Errorf("%+v: valid", p)
		}
	}
	for _, size := range []int64{0, 1 << 30, 1 << 40, 1 << 50} {
		p := ForSize(size)
		if err := p.Check(); err != nil {
			t.Errorf("ForSize(%d): %v", size, err)
		}
		if size>>20 > int64(p.Avg) && p.Avg < MaxAvg {
			t.Errorf("ForSize(%d): average %d gives more than 2^20 chunks", size, p.Avg)
		}
	}
}

type errReader struct{ n int }

func (r *errReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.ErrClosedPipe
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

func TestReadError(t *testing.T) {
	c := NewChunker(&errReader{n: 100000}, ForSize(0), nil)
	for {
		_, err := c.Next()
		if err == io.ErrClosedPipe {
			return
		}
		if err != nil {
			t.Fatalf("got %v, want the reader's error", err)
		}
	}
}

func BenchmarkCut(b *testing.B) {
	data := random(8<<20, 5)
	p := ForSize(int64(len(data)))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for d := data; len(d) > 0; {
			d = d[p.Cut(d):]
		}
	}
}

// TestChunkerFor: NewChunkerFor cuts a stream shorter than Max as
// NewChunker does, with a buffer of about twice the stream, at any read
// size, and a stream as long as Max or longer as NewChunker does too.
func TestChunkerFor(t *testing.T) {
	p := Params{Min: 1024, Avg: 4096, Max: 1 << 20}
	for _, n := range []int{0, 1, 1000, 5000, 300_000, 1 << 20, 1<<20 + 7, 3 << 20} {
		data := random(n, uint64(n)+3)
		want := chunks(t, bytes.NewReader(data), p)
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
			c := NewChunkerFor(r, int64(n), p, nil)
			if n < p.Max && len(c.buf) > 2*n+1 {
				t.Fatalf("%d bytes: a buffer of %d", n, len(c.buf))
			}
			var got [][]byte
			for {
				b, err := c.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%d bytes: %v", n, err)
				}
				got = append(got, bytes.Clone(b))
			}
			if len(got) != len(want) {
				t.Fatalf("%d bytes: %d chunks, NewChunker %d", n, len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("%d bytes: chunk %d differs", n, i)
				}
			}
		}
	}
}

// TestChunkerForLongStream: over a stream longer than n, NewChunkerFor
// cuts every chunk shorter than n as NewChunker does, and where
// NewChunker cuts one of n bytes or more, one of n bytes or more too.
func TestChunkerForLongStream(t *testing.T) {
	p := Params{Min: 1024, Avg: 4096, Max: 1 << 20}
	data := random(2<<20, 11)
	want := chunks(t, bytes.NewReader(data), p)
	longest := 0
	for _, c := range want {
		longest = max(longest, len(c))
	}
	for _, n := range []int{longest + 1, longest, longest / 2, 5000} {
		c := NewChunkerFor(bytes.NewReader(data), int64(n), p, nil)
		for i, w := range want {
			got, err := c.Next()
			if err != nil {
				t.Fatalf("n %d: chunk %d: %v", n, i, err)
			}
			if len(w) >= n {
				if len(got) < n {
					t.Fatalf("n %d: chunk %d of %d bytes where NewChunker cuts %d", n, i, len(got), len(w))
				}
				break // from here on the two may differ
			}
			if !bytes.Equal(got, w) {
				t.Fatalf("n %d: chunk %d differs (%d bytes, want %d)", n, i, len(got), len(w))
			}
		}
	}
}
