package xzenc

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	mxz "github.com/mikelolasagasti/xz"
	uxz "github.com/ulikunitz/xz"
)

// corpus returns test inputs: empty, tiny, runs, text, random, mixed, and
// the Go sources of this module's dependencies' standard library sample.
func corpus(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var text bytes.Buffer
	for text.Len() < 400<<10 {
		text.WriteString("func (e *Encoder) find(p int) match { return e.chain[p&mask] }\n")
		text.WriteString(string(rune('a' + rng.IntN(26))))
	}
	var mixed bytes.Buffer
	mixed.Write(random[:70<<10])
	mixed.Write(text.Bytes()[:100<<10])
	mixed.Write(random[100<<10 : 200<<10])
	floats := make([]byte, 256<<10)
	for i := 0; i+4 <= len(floats); i += 12 {
		v := uint32(0x3f800000 + rng.IntN(1<<16))
		floats[i], floats[i+1], floats[i+2], floats[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	m := map[string][]byte{
		"empty":  nil,
		"one":    {42},
		"three":  []byte("abc"),
		"zeros":  make([]byte, 5<<20), // several chunks of 2 MiB
		"text":   text.Bytes(),
		"random": random,
		"mixed":  mixed.Bytes(),
		"floats": floats,
		"rep":    bytes.Repeat([]byte("abcdefgh12345678"), 1000),
	}
	if src, err := os.ReadFile(filepath.Join(gocorpus.SrcDir(), "go", "types", "expr.go")); err == nil {
		m["go"] = src
	}
	return m
}

func encode(t testing.TB, e *Encoder, data []byte, dict int) []byte {
	var buf bytes.Buffer
	if err := e.Encode(&buf, data, dict); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip decodes every stream with the two Go decoders the module
// uses, with one Encoder reused across inputs and dictionary sizes.
func TestRoundTrip(t *testing.T) {
	var e Encoder
	for name, data := range corpus(t) {
		for _, dict := range []int{MinDict, 64 << 10, 1 << 20, 8 << 20} {
			z := encode(t, &e, data, dict)
			r, err := mxz.NewReader(bytes.NewReader(z), 1<<24)
			if err != nil {
				t.Fatalf("%s/%d: %v", name, dict, err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s/%d: xi2 decoder: %d bytes, %v", name, dict, len(got), err)
			}
			ur, err := uxz.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatalf("%s/%d: %v", name, dict, err)
			}
			got, err = io.ReadAll(ur)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s/%d: ulikunitz decoder: %d bytes, %v", name, dict, len(got), err)
			}
		}
	}
}

// TestCompresses: text shrinks well, and no worse than ulikunitz/xz's
// hash-table encoder (what the module used before).
func TestCompresses(t *testing.T) {
	var e Encoder
	for _, name := range []string{"text", "go", "rep", "floats"} {
		data := corpus(t)[name]
		if data == nil {
			continue
		}
		ours := len(encode(t, &e, data, 1<<20))
		var ub bytes.Buffer
		uw, err := uxz.WriterConfig{DictCap: 1 << 20, NoCheckSum: true}.NewWriter(&ub)
		if err != nil {
			t.Fatal(err)
		}
		uw.Write(data)
		uw.Close()
		t.Logf("%s: %d -> %d bytes (ulikunitz %d)", name, len(data), ours, ub.Len())
		if ours > ub.Len()*21/20 {
			t.Errorf("%s: %d bytes, more than 5%% above ulikunitz's %d", name, ours, ub.Len())
		}
	}
}

// TestStoredChunks: incompressible data goes into stored LZMA2 chunks
// (3 bytes of header per 64 KiB) instead of expanding by about 1.5% as
// LZMA literals. (Streams mixing stored and LZMA chunks are decoded by
// TestRoundTrip and TestXZTool: "mixed".)
func TestStoredChunks(t *testing.T) {
	var e Encoder
	c := corpus(t)
	random := c["random"]
	if n := len(encode(t, &e, random, 1<<20)); n > len(random)+len(random)/1000+64 {
		t.Errorf("random: %d bytes for %d", n, len(random))
	}
}

// TestXZTool checks the streams with xz(1), the reference decoder, when
// it is installed (.ci/run installs it).
func TestXZTool(t *testing.T) {
	xzPath, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz not installed")
	}
	var e Encoder
	for name, data := range corpus(t) {
		cmd := exec.Command(xzPath, "-d", "-c")
		cmd.Stdin = bytes.NewReader(encode(t, &e, data, 1<<20))
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: xz -d: %d bytes, %v", name, len(got), err)
		}
	}
}

// TestDictionaryLimit: no match reaches farther back than the dictionary
// (the stream decodes with a decoder holding exactly that much), and a
// larger dictionary finds a repeat a small one cannot.
func TestDictionaryLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	block := make([]byte, 8<<10)
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	// The same random 8 KiB twice, 64 KiB apart: reachable only with a
	// dictionary larger than the gap.
	gap := make([]byte, 64<<10)
	for i := range gap {
		gap[i] = byte(rng.Uint32())
	}
	data := append(append(append([]byte{}, block...), gap...), block...)
	var e Encoder
	small := encode(t, &e, data, MinDict)
	large := encode(t, &e, data, 1<<20)
	if len(large) >= len(small)-4<<10 {
		t.Errorf("the 1 MiB dictionary did not find the repeat: %d vs %d bytes", len(large), len(small))
	}
	r, err := mxz.NewReader(bytes.NewReader(small), MinDict)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("4 KiB dictionary stream: %v", err)
	}
	if dictByte(MinDict) != 0 || dictByte(6<<10) != 1 || dictByte(1<<20) != 16 || dictByte(1<<20+1) != 17 {
		t.Error("dictByte")
	}
}

func TestEncodeRejectsDictionary(t *testing.T) {
	var e Encoder
	if err := e.Encode(io.Discard, []byte("x"), 100); err == nil {
		t.Error("accepted a 100-byte dictionary")
	}
}
