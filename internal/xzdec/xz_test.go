package xzdec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	"github.com/gobpx/bpx/internal/xzenc"
	"github.com/gobpx/bpx/internal/xztool"
	mxz "github.com/mikelolasagasti/xz"
)

func inputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 200<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	text := bytes.Repeat([]byte("LZMA2 chunks, literals, matches and reps; "), 20000)
	m := map[string][]byte{
		"empty":  nil,
		"one":    {7},
		"text":   text,
		"random": random,
		"mixed":  append(append(append([]byte{}, random[:50<<10]...), text[:300<<10]...), random[50<<10:]...),
		"zeros":  make([]byte, 3<<20),
	}
	if src, err := os.ReadFile(filepath.Join(gocorpus.SrcDir(), "go", "types", "expr.go")); err == nil {
		m["go"] = src
	}
	return m
}

func xi2(t testing.TB, z []byte) ([]byte, error) {
	t.Helper()
	r, err := mxz.NewReader(bytes.NewReader(z), 1<<26)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// TestOwnEncoder decodes the encoder's streams, appending to a prefix that
// must survive.
func TestOwnEncoder(t *testing.T) {
	var enc xzenc.Encoder
	var dec Decoder
	for name, data := range inputs() {
		var z bytes.Buffer
		if err := enc.Encode(&z, data, 1<<20); err != nil {
			t.Fatal(err)
		}
		got, err := dec.Decode([]byte("prefix"), z.Bytes(), len(data))
		if err != nil || string(got[:6]) != "prefix" || !bytes.Equal(got[6:], data) {
			t.Fatalf("%s: %d bytes, %v", name, len(got), err)
		}
		if len(data) > 0 {
			if _, err := dec.Decode(nil, z.Bytes(), len(data)-1); !errors.Is(err, ErrLimit) {
				t.Errorf("%s: limit one short: %v", name, err)
			}
		}
		small := Decoder{MaxDict: 512 << 10}
		if _, err := small.Decode(nil, z.Bytes(), len(data)); !errors.Is(err, ErrDict) {
			t.Errorf("%s: 1 MiB dictionary with MaxDict 512 KiB: %v", name, err)
		}
	}
}

// TestXZTool decodes what xz(1) writes at several presets and check
// types, and refuses (ErrUnsupported) what it leaves to the general
// decoder: other filters and several streams.
func TestXZTool(t *testing.T) {
	xz, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz not installed")
	}
	data := inputs()["mixed"]
	run := func(args ...string) []byte {
		cmd := exec.Command(xz, append(args, "-c")...)
		cmd.Stdin = bytes.NewReader(data)
		z, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	var dec Decoder
	for _, args := range [][]string{
		{"-0", "-C", "none"}, {"-1", "-C", "crc32"}, {"-6", "-C", "crc64"}, {"-9e", "-C", "crc64"},
		{"-3", "--block-size=100000", "-C", "crc32"}, // several blocks, sizes in the headers
		{"--lzma2=preset=1,lc=0,lp=2,pb=0", "-C", "none"},
		{"--lzma2=preset=1,lc=4,lp=0,pb=4", "-C", "crc32"},
		{"-1", "-C", "sha256"}, {"-2", "--block-size=70000", "-C", "sha256"},
	} {
		got, err := dec.Decode(nil, run(args...), len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("xz %v: %d bytes, %v", args, len(got), err)
		}
	}
	for _, args := range [][]string{{"--x86", "--lzma2=preset=1"}, {"--delta=dist=4", "--lzma2=preset=1"}} {
		if _, err := dec.Decode(nil, run(args...), len(data)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("xz %v: %v, want ErrUnsupported", args, err)
		}
	}
	two := append(run("-1"), run("-1")...)
	if _, err := dec.Decode(nil, two, 2*len(data)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("two streams: %v, want ErrUnsupported", err)
	}
}

// TestCorruptionNeverAccepted flips every bit of a small stream in turn:
// the decoder either fails or returns exactly what the general decoder
// returns for the same bytes.
func TestCorruptionNeverAccepted(t *testing.T) {
	var enc xzenc.Encoder
	var z bytes.Buffer
	data := []byte("abracadabra, abracadabra, abracadabra! 0123456789 0123456789")
	if err := enc.Encode(&z, data, 4096); err != nil {
		t.Fatal(err)
	}
	var dec Decoder
	for i := range z.Len() * 8 {
		b := bytes.Clone(z.Bytes())
		b[i/8] ^= 1 << (i % 8)
		got, err := dec.Decode(nil, b, 1<<20)
		if err != nil {
			continue
		}
		want, werr := xi2(t, b)
		if werr != nil || !bytes.Equal(got, want) {
			t.Fatalf("bit %d: accepted %q; general decoder %q, %v", i, got, want, werr)
		}
	}
}

// TestFarRepDistance: a repeated distance of 2.25 GiB, more than an int
// holds where it has 32 bits, is an error and not a negative index.
// Zero bytes decode as 0 bits (a matched literal after a match), 0xFF
// bytes as 1 bits (a match at reps[3]).
func TestFarRepDistance(t *testing.T) {
	for name, fill := range map[string]byte{"matched literal": 0, "rep match": 0xFF} {
		var m model
		m.lc, m.lp, m.pb = 3, 0, 2
		m.reset()
		m.state = 7
		m.reps = [4]uint32{0x9000_0000, 0x9000_0000, 0x9000_0000, 0x9000_0000}
		in := append([]byte{0}, bytes.Repeat([]byte{fill}, 64)...)
		var rc rangeDecoder
		if err := rc.init(in); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 1000)
		if _, err := m.decodeChunk(&rc, out, 500, 1000, 0, 1<<32-1); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v, want errCorrupt", name, err)
		}
	}
}

// TestBlockHeaderDict: dictionary sizes above 2 GiB come back whole, as
// uint32, and MaxDict compares with them without wrapping.
func TestBlockHeaderDict(t *testing.T) {
	for _, c := range []struct {
		db   byte
		want uint32
	}{{0, 4 << 10}, {1, 6 << 10}, {38, 2 << 30}, {39, 3 << 30}, {40, 1<<32 - 1}} {
		h := []byte{2, 0, 0x21, 1, c.db, 0, 0, 0}
		h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
		dict, _, _, err := parseBlockHeader(h, len(h))
		if err != nil || dict != c.want {
			t.Errorf("dictionary byte %d: %d, %v; want %d", c.db, dict, err, c.want)
		}
	}
}

// TestChecks: a stream of each check type decodes, and one bit flipped in
// its check (which, unlike the block's data, changes nothing else) is an
// error, never accepted silently.
func TestChecks(t *testing.T) {
	data := inputs()["mixed"]
	var dec Decoder
	for _, check := range []string{"none", "crc32", "crc64", "sha256"} {
		z := xztool.Compress(t, data, "-1", "--check="+check)
		got, err := dec.Decode(nil, z, len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("check %s: %d bytes, %v", check, len(got), err)
		}
		off, size := xztool.CheckField(z)
		for i := range size {
			bad := bytes.Clone(z)
			bad[off+i] ^= 0x10
			if _, err := dec.Decode(nil, bad, len(data)); !errors.Is(err, errCorrupt) {
				t.Errorf("check %s, byte %d of it flipped: %v, want errCorrupt", check, i, err)
			}
		}
	}
}

// TestMatchAtChunkEnd decodes many short streams of words, whose last
// symbols are often short matches near the chunk's end, where a copy
// that moves whole words must not reach past it.
func TestMatchAtChunkEnd(t *testing.T) {
	var enc xzenc.Encoder
	var dec Decoder
	rng := rand.New(rand.NewPCG(9, 10))
	words := []string{"ab", "cde", "fghi", "jk", "lmnop", "q", "rstuvw", "xyz0123"}
	for i := range 2000 {
		var data []byte
		for len(data) < 20+i%300 {
			data = append(data, words[rng.IntN(len(words))]...)
		}
		var z bytes.Buffer
		if err := enc.Encode(&z, data, 4096); err != nil {
			t.Fatal(err)
		}
		got, err := dec.Decode(nil, z.Bytes(), len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%q: %q, %v", data, got, err)
		}
	}
}
