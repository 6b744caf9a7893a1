package xzdec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/xzenc"
)

// maxMatch is the longest LZMA match, the most DecodeTo may go past n.
const maxMatch = 273

// joinBlocks makes one stream of the blocks of single-block streams that
// share their check type, with an index listing them all.
func joinBlocks(t testing.TB, streams ...[]byte) []byte {
	t.Helper()
	out := append([]byte{}, streams[0][:12]...)
	var index []byte
	for _, z := range streams {
		idx := len(z) - 12 - 4*(int(binary.LittleEndian.Uint32(z[len(z)-8:]))+1)
		if z[idx] != 0 || z[idx+1] != 1 {
			t.Fatalf("not a single-block stream")
		}
		out = append(out, z[12:idx]...)
		u, k1 := uvarint(z[idx+2:])
		v, k2 := uvarint(z[idx+2+k1:])
		if k1 <= 0 || k2 <= 0 {
			t.Fatal("bad index")
		}
		index = binary.AppendUvarint(binary.AppendUvarint(index, u), v)
	}
	index = append(binary.AppendUvarint([]byte{0}, uint64(len(streams))), index...)
	for len(index)%4 != 0 {
		index = append(index, 0)
	}
	index = binary.LittleEndian.AppendUint32(index, crc32.ChecksumIEEE(index))
	out = append(out, index...)
	footer := binary.LittleEndian.AppendUint32(nil, uint32(len(index)/4-1))
	footer = append(footer, streams[0][6:8]...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(footer))
	return append(append(out, footer...), 'Y', 'Z')
}

// resumeStreams returns streams to decode in steps: xzenc's (with
// stored chunks for random data, several blocks joined) and xz(1)'s if
// it is installed.
func resumeStreams(t *testing.T) map[string][]byte {
	var enc xzenc.Encoder
	in := inputs()
	encode := func(data []byte) []byte {
		var z bytes.Buffer
		if err := enc.Encode(&z, data, 1<<20); err != nil {
			t.Fatal(err)
		}
		return z.Bytes()
	}
	m := map[string][]byte{}
	for _, name := range []string{"one", "text", "random", "mixed", "go"} {
		if data, ok := in[name]; ok {
			m["xzenc "+name] = encode(data)
		}
	}
	m["xzenc blocks"] = joinBlocks(t, encode(in["mixed"][:100<<10]), encode(in["random"][:70000]), encode(in["text"][:1]), encode(in["mixed"]))
	if xz, err := exec.LookPath("xz"); err == nil {
		for _, args := range [][]string{{"-6", "-C", "crc64"}, {"-3", "--block-size=100000", "-C", "sha256"}, {"-0", "-C", "none"}} {
			cmd := exec.Command(xz, append(args, "-c", "-T1")...)
			cmd.Stdin = bytes.NewReader(in["mixed"])
			z, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			m["xz "+args[0]+" "+args[1]] = z
		}
	}
	return m
}

// stepper decodes z with DecodeTo at each stop of stops in turn,
// checking every result against want (Decode's output, or nil with
// wantErr): a prefix of it, at least n bytes unless the stream has ended,
// less than a match past n, in the array dst gave, and Done only at the
// end. It returns the error met, if any.
func stepper(t testing.TB, d *Decoder, z, want []byte, stops []int) error {
	t.Helper()
	const prefix = "pre"
	dst := make([]byte, len(prefix), len(prefix)+len(want))
	copy(dst, prefix)
	d.Start(dst, z, len(want))
	seen := 0 // bytes compared so far
	for _, n := range stops {
		got, err := d.DecodeTo(n)
		if err != nil {
			if string(got) != prefix {
				t.Fatalf("error %v with %d bytes, want the prefix", err, len(got))
			}
			if d.Done() {
				t.Fatal("Done after an error")
			}
			return err
		}
		if string(got[:3]) != prefix || &got[0] != &dst[0] {
			t.Fatal("prefix lost or output moved")
		}
		got = got[3:]
		if len(got) < seen || !bytes.Equal(got[seen:], want[seen:len(got)]) {
			t.Fatalf("stop %d: %d bytes differ from Decode's", n, len(got))
		}
		seen = len(got)
		if len(got) < min(n, len(want)) || len(got) >= max(n, 0)+maxMatch {
			t.Fatalf("stop %d: %d bytes", n, len(got))
		}
		if d.Done() != (len(got) == len(want)) {
			t.Fatalf("stop %d: %d of %d bytes, Done %v", n, len(got), len(want), d.Done())
		}
	}
	return nil
}

// TestDecodeTo decodes streams in steps of one byte, random steps, and
// stops around every chunk's edges: the same bytes as Decode, never far
// past the stop, and Done only after the last check.
func TestDecodeTo(t *testing.T) {
	var d Decoder
	for name, z := range resumeStreams(t) {
		want, err := d.Decode(nil, z, 1<<26)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// One byte at a time, noting where chunks end.
		edges := map[int]bool{}
		var ones []int
		for n := range len(want) + 2 {
			ones = append(ones, n)
		}
		stored, midMatch := false, false
		d.Start(nil, z, len(want))
		for _, n := range ones {
			got, err := d.DecodeTo(n)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d.phase == inLZMA || d.phase == inStored {
				edges[len(d.out)] = true
			}
			stored = stored || d.phase == inStored
			midMatch = midMatch || len(got) > n+1
		}
		if name == "xzenc random" && !stored || name == "xzenc text" && !midMatch {
			t.Fatalf("%s: no stop inside a stored chunk or a match", name)
		}
		if err := stepper(t, &d, z, want, ones); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (name == "xzenc blocks" || name == "xzenc mixed") && len(edges) < 3 {
			t.Fatalf("%s: %d chunk edges", name, len(edges))
		}
		var around []int
		for _, e := range sortedKeys(edges) {
			around = append(around, e-1, e, e+1)
		}
		if err := stepper(t, &d, z, want, around); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(z)), 1))
		for range 20 {
			var stops []int
			for n := 0; n <= len(want); n += rng.IntN(1 + rng.IntN(70000)) {
				stops = append(stops, n)
			}
			if err := stepper(t, &d, z, want, append(stops, len(want))); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		// Straight to the end, and a stop beyond it.
		if err := stepper(t, &d, z, want, []int{len(want)}); err != nil || !d.Done() {
			t.Fatalf("%s: %v, Done %v", name, err, d.Done())
		}
		if err := stepper(t, &d, z, want, []int{-5, 1 << 30}); err != nil || !d.Done() {
			t.Fatalf("%s: %v, Done %v", name, err, d.Done())
		}
	}
}

func sortedKeys(m map[int]bool) []int {
	var s []int
	for k := range m {
		s = append(s, k)
	}
	for i := range s { // small: insertion sort
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestDecodeToCorrupt damages streams and decodes them in random steps
// and with a Reader: no panic, the error Decode gives (sticky), and the
// same bytes as Decode where it accepts them.
func TestDecodeToCorrupt(t *testing.T) {
	var d Decoder
	var rd Reader
	rng := rand.New(rand.NewPCG(7, 8))
	for name, z := range resumeStreams(t) {
		if len(z) > 200<<10 {
			continue
		}
		for range 200 {
			bad := bytes.Clone(z)
			for range 1 + rng.IntN(3) {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			if rng.IntN(8) == 0 {
				bad = bad[:rng.IntN(len(bad))]
			}
			steppedMatches(t, &d, name, bad, rng)
			readerMatches(t, &d, &rd, name, bad, rng)
		}
	}
}

// steppedMatches decodes z with Decode and in random steps and fails
// unless both give the same bytes or the same error.
func steppedMatches(t testing.TB, d *Decoder, name string, z []byte, rng *rand.Rand) {
	t.Helper()
	const limit = 1 << 20
	want, werr := d.Decode(nil, z, limit)
	var stops []int
	for n := 0; n < limit; n += 1 + rng.IntN(1+rng.IntN(5000)) {
		stops = append(stops, n)
	}
	stops = append(stops, limit)
	d.Start(nil, z, limit)
	var got []byte
	var err error
	for _, n := range stops {
		if got, err = d.DecodeTo(n); err != nil {
			break
		}
		if len(got) > len(want) && werr == nil {
			t.Fatalf("%s: %d bytes, Decode %d", name, len(got), len(want))
		}
	}
	if err != werr {
		t.Fatalf("%s: stepped %v, Decode %v", name, err, werr)
	}
	if err != nil {
		if got2, err2 := d.DecodeTo(limit); err2 != err || len(got2) != 0 {
			t.Fatalf("%s: error not sticky: %v then %v", name, err, err2)
		}
		return
	}
	if !d.Done() || !bytes.Equal(got, want) {
		t.Fatalf("%s: stepped %d bytes (Done %v), Decode %d", name, len(got), d.Done(), len(want))
	}
}

// TestDecodeToLimit: a stream longer than the limit fails with ErrLimit
// when DecodeTo reaches the chunk that exceeds it, not before.
func TestDecodeToLimit(t *testing.T) {
	var enc xzenc.Encoder
	var z bytes.Buffer
	data := inputs()["mixed"]
	if err := enc.Encode(&z, data, 1<<20); err != nil {
		t.Fatal(err)
	}
	var d Decoder
	d.Start(nil, z.Bytes(), len(data)-1)
	got, err := d.DecodeTo(1000)
	if err != nil || !bytes.Equal(got, data[:len(got)]) {
		t.Fatalf("first 1000 bytes: %d bytes, %v", len(got), err)
	}
	if _, err := d.DecodeTo(len(data)); !errors.Is(err, ErrLimit) {
		t.Fatalf("to the end: %v, want ErrLimit", err)
	}
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}

// TestStartReader decodes streams read from an io.Reader in random steps:
// the same bytes as Decode, in the array dst gave, Done only at the end,
// and the input read only a little past what the bytes decoded needed.
func TestStartReader(t *testing.T) {
	var d, s Decoder
	rng := rand.New(rand.NewPCG(8, 9))
	for name, z := range resumeStreams(t) {
		want, err := d.Decode(nil, z, 1<<26)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		src := &countingReader{r: &chunkReader{z, rng}}
		dst := make([]byte, 0, len(want))
		s.StartReader(dst, src, len(want))
		n := 0
		for !s.Done() {
			n += 1 + rng.IntN(len(want)/4+1)
			got, err := s.DecodeTo(n)
			if errors.Is(err, ErrUnsupported) {
				break // left to others, as a Reader does
			}
			if err != nil {
				t.Fatalf("%s: stop %d: %v", name, n, err)
			}
			if len(got) > 0 && &got[0] != &dst[:1][0] {
				t.Fatalf("%s: output moved", name)
			}
			if len(got) < min(n, len(want)) || !bytes.Equal(got, want[:len(got)]) {
				t.Fatalf("%s: stop %d: %d bytes differ from Decode's", name, n, len(got))
			}
		}
	}
	// The first bytes of a large stream need only its first chunks.
	z := resumeStreams(t)["xzenc mixed"]
	want, _ := d.Decode(nil, z, 1<<26)
	src := &countingReader{r: bytes.NewReader(z)}
	s.StartReader(make([]byte, 0, len(want)), src, len(want))
	if _, err := s.DecodeTo(100); err != nil {
		t.Fatal(err)
	}
	if len(z) < 192<<10 || src.n > 160<<10 {
		t.Fatalf("read %d of %d stored bytes for 100 decoded bytes", src.n, len(z))
	}
}

// startReaderMatches decodes z with StartReader, reading it through
// random pieces, in random steps: where Decode accepts z, the same bytes
// (or ErrUnsupported, left to others); where it refuses z, never Done.
func startReaderMatches(t testing.TB, dec, s *Decoder, z []byte, rng *rand.Rand) {
	const limit = 1 << 20
	want, werr := dec.Decode(nil, z, limit)
	s.StartReader(nil, &chunkReader{z, rng}, limit)
	var got []byte
	var err error
	for n := 0; err == nil && !s.Done(); {
		n += 1 + rng.IntN(64<<10)
		got, err = s.DecodeTo(n)
	}
	switch {
	case werr != nil && s.Done():
		t.Fatalf("Decode refuses (%v), StartReader accepts %d bytes", werr, len(got))
	case werr == nil && err == nil && !bytes.Equal(got, want):
		t.Fatalf("StartReader: %d bytes differ from Decode's %d", len(got), len(want))
	case werr == nil && err != nil && !errors.Is(err, ErrUnsupported):
		t.Fatalf("Decode accepts %d bytes, StartReader fails: %v", len(want), err)
	}
}
