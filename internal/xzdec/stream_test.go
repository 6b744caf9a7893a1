package xzdec

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/internal/xzenc"
)

// chunkReader returns its bytes in pieces of random sizes, as a file or a
// network connection may.
type chunkReader struct {
	b   []byte
	rng *rand.Rand
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+r.rng.IntN(100000))], r.b)
	r.b = r.b[n:]
	return n, nil
}

// readAll reads z with a Reader through Reads of random sizes (up to
// most) from a source that returns random pieces.
func readAll(z *Reader, src []byte, rng *rand.Rand, most int) ([]byte, error) {
	z.Reset(&chunkReader{src, rng}, 0)
	var out []byte
	buf := make([]byte, most)
	for {
		n, err := z.Read(buf[:1+rng.IntN(most)])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// slidingStreams adds to resumeStreams streams longer than a Reader's
// window, which must slide: 7 MiB of Go source with a 1 MiB dictionary
// from xzenc, and with a 256 KiB one, in 1 MiB blocks, from xz(1).
func slidingStreams(t *testing.T) map[string][]byte {
	m := resumeStreams(t)
	src := gocorpus.Source(7 << 20)
	var enc xzenc.Encoder
	var z bytes.Buffer
	if err := enc.Encode(&z, src, 1<<20); err != nil {
		t.Fatal(err)
	}
	m["xzenc 7 MiB"] = z.Bytes()
	if xz, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command(xz, "--lzma2=preset=6,dict=256KiB", "--block-size=1MiB", "-C", "crc64", "-c", "-T1")
		cmd.Stdin = bytes.NewReader(src)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		m["xz 7 MiB blocks"] = out
	}
	return m
}

// TestReader reads streams with a Reader, through Reads of random sizes
// from a source of random pieces: the same bytes as Decode, in a window
// no larger than documented.
func TestReader(t *testing.T) {
	var dec Decoder
	var z Reader
	rng := rand.New(rand.NewPCG(11, 12))
	for name, s := range slidingStreams(t) {
		want, err := dec.Decode(nil, s, 1<<30)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z = Reader{} // a window sized for this stream alone
		for _, most := range []int{1, 1000, 3 << 20} {
			if most == 1 && len(want) > 1<<20 {
				continue
			}
			got, err := readAll(&z, s, rng, most)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s, reads up to %d: %d bytes, %v; want %d", name, most, len(got), err, len(want))
			}
			if bound := max(int(z.d.dict), maxRead+maxMatchLen) + maxChunk + 16; cap(z.d.out) > bound {
				t.Errorf("%s: window of %d bytes, bound %d", name, cap(z.d.out), bound)
			}
			if cap(z.d.inBuf) > 2*streamAhead {
				t.Errorf("%s: input buffer of %d bytes", name, cap(z.d.inBuf))
			}
		}
	}
}

// readerMatches fails unless a Reader and Decode agree on z: the same
// error, or the same bytes.
func readerMatches(t testing.TB, dec *Decoder, z *Reader, name string, s []byte, rng *rand.Rand) {
	t.Helper()
	want, werr := dec.Decode(nil, s, 1<<30)
	if werr == ErrDict {
		return // a dictionary a Reader refuses: not comparable
	}
	got, err := readAll(z, s, rng, 5000)
	if err != werr {
		t.Fatalf("%s: Reader %v, Decode %v", name, err, werr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: Reader %d bytes, Decode %d", name, len(got), len(want))
	}
}

// TestReaderLimits: a dictionary above the Reader's maximum is ErrDict,
// an index beyond maxStreamIndex ErrUnsupported, a source's error comes
// back, and one that never returns anything is io.ErrNoProgress, not a
// hang.
func TestReaderLimits(t *testing.T) {
	var enc xzenc.Encoder
	var s bytes.Buffer
	data := inputs()["mixed"]
	if err := enc.Encode(&s, data, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(NewReader(bytes.NewReader(s.Bytes()), 512<<10)); !errors.Is(err, ErrDict) {
		t.Errorf("1 MiB dictionary, maximum 512 KiB: %v", err)
	}
	// Trailing bytes beyond what the Reader reads for the index.
	long := append(bytes.Clone(s.Bytes()), make([]byte, maxStreamIndex+100)...)
	if _, err := io.ReadAll(NewReader(bytes.NewReader(long), 0)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("64 KiB of padding: %v", err)
	}
	if _, err := io.ReadAll(NewReader(emptyReader{}, 0)); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("a source that returns nothing, forever: %v", err)
	}
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(s.Bytes()[:1000]), iotestErr{boom})
	if _, err := io.ReadAll(NewReader(r, 0)); !errors.Is(err, boom) {
		t.Errorf("source error: %v", err)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }
