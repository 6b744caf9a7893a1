package bpx_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
)

// writerSamples returns the bpx samples folder, skipping the test when it
// is absent.
func writerSamples(t *testing.T) string { return samples.Dir(t, "bpx") }

// storedBytes returns the stored bytes of every section of b, and the
// parsed table.
func storedBytes(t *testing.T, b []byte) ([][]byte, []parsedSection) {
	secs := checkLayout(t, b)
	out := make([][]byte, len(secs))
	for i, s := range secs {
		out[i] = b[s.ptr : s.ptr+uint64(s.csize)]
	}
	return out, secs
}

// decodeWith runs an external decoder on stream and returns its output.
func decodeWith(t *testing.T, stream []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stream)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", name, err, stderr.Bytes())
	}
	return out
}

func interopPayloads() [][]byte {
	return [][]byte{
		textData(5000, 11),
		textData(300000, 12), // larger than the 256 KiB dictionary
		append(textData(70000, 13), randomData(20000, 13)...),
		make([]byte, 1<<20),
	}
}

func TestXZToolDecodesOurSections(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz tool not installed")
	}
	var payloads [][]byte
	var secs []testSection
	for _, l := range []bpx.Level{bpx.LevelDefault, bpx.LevelFast, bpx.LevelMax} {
		for _, p := range interopPayloads() {
			payloads = append(payloads, p)
			secs = append(secs, testSection{o: bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Level: l}, data: p})
		}
	}
	stored, table := storedBytes(t, writeContainer(t, secs))
	for i, p := range payloads {
		if table[i].flags&bpx.FlagXZ == 0 {
			t.Fatalf("section %d not xz-compressed", i)
		}
		if got := decodeWith(t, stored[i], "xz", "-dc"); !bytes.Equal(got, p) {
			t.Errorf("section %d: xz -dc gives %d bytes, want the %d written", i, len(got), len(p))
		}
	}
}

func TestPythonZlibDecodesOurSections(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	if err := exec.Command("python3", "-c", "import zlib").Run(); err != nil {
		t.Skipf("python3 without zlib: %v", err)
	}
	payloads := interopPayloads()
	var secs []testSection
	for _, p := range payloads {
		secs = append(secs, testSection{o: bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: bpx.ChecksumWeak}, data: p})
	}
	stored, table := storedBytes(t, writeContainer(t, secs))
	// One Python process for every stream (interpreter start-up is slow):
	// each stream and each result is framed by an 8-byte length.
	var in bytes.Buffer
	for i, st := range stored {
		if table[i].flags&bpx.FlagZlib == 0 {
			t.Fatalf("section %d not zlib-compressed", i)
		}
		in.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(st))))
		in.Write(st)
	}
	out := decodeWith(t, in.Bytes(), "python3", "-c", `import sys, zlib, struct
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    h = inp.read(8)
    if not h:
        break
    d = zlib.decompress(inp.read(struct.unpack("<Q", h)[0]))
    out.write(struct.pack("<Q", len(d)) + d)`)
	for i, p := range payloads {
		if len(out) < 8 || uint64(len(out)-8) < binary.LittleEndian.Uint64(out) {
			t.Fatalf("section %d: Python output truncated", i)
		}
		n := binary.LittleEndian.Uint64(out)
		got := out[8 : 8+n]
		out = out[8+n:]
		if !bytes.Equal(got, p) {
			t.Errorf("section %d: Python zlib gives %d bytes, want the %d written", i, len(got), len(p))
		}
	}
}

// The reference's container_checks.bpx: type 'Z', TypeExt 1..16, five
// sections of types 1-5 holding the fox sentence, stored (1) raw without
// checksum, (2) weak, (3) CRC32, (4) CRC32 + xz with threshold 0, (5) weak
// and empty.
var foxSentence = []byte("The quick brown fox jumps over the lazy dog")

// containerChecksExt is the TypeExt of container_checks.bpx (Type 'Z').
func containerChecksExt() [16]byte {
	var ext [16]byte
	for i := range ext {
		ext[i] = byte(i + 1)
	}
	return ext
}

func TestReferenceLayoutContainerChecks(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(writerSamples(t), "reference-generated", "container_checks.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	ref := openBytes(t, want)

	// With the xz section copied from the reference file, the whole file
	// must come out byte for byte.
	var out bytes.Buffer
	w := bpx.NewWriter(&out)
	w.SetType('Z')
	w.SetTypeExt(containerChecksExt())
	for i, k := range []bpx.Checksum{bpx.ChecksumNone, bpx.ChecksumWeak, bpx.ChecksumCRC32} {
		sw, err := w.CreateSection(uint8(i+1), bpx.SectionOptions{Checksum: k, Threshold: bpx.DefaultThreshold, Compression: bpx.CompressXZ})
		if err != nil {
			t.Fatal(err)
		}
		sw.Write(foxSentence)
	}
	if err := w.CopySection(ref.Sections[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateSection(5, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("container_checks.bpx not reproduced\n got %x\nwant %x", out.Bytes(), want)
	}

	// With our own xz section (which falls back to raw: 43 bytes do not
	// shrink), sections 1, 2, 3 and 5 keep the reference's table entries
	// (5 apart from its Pointer) and data.
	own := writeTypedContainer(t, 'Z', containerChecksExt(), []testSection{
		{typ: 1, o: bpx.SectionOptions{}, data: foxSentence},
		{typ: 2, o: bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, data: foxSentence},
		{typ: 3, o: bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, data: foxSentence},
		{typ: 4, o: bpx.SectionOptions{Checksum: bpx.ChecksumCRC32, Compression: bpx.CompressXZ}, data: foxSentence},
		{typ: 5, o: bpx.SectionOptions{Checksum: bpx.ChecksumWeak}},
	})
	checkLayout(t, own)
	if !bytes.Equal(own[:4], want[:4]) || !bytes.Equal(own[16:40], want[16:40]) {
		t.Errorf("main header differs beyond checksum and FileSize:\n got %x\nwant %x", own[:40], want[:40])
	}
	entry := func(b []byte, i int) []byte { return b[40+24*i : 40+24*(i+1)] }
	for _, i := range []int{0, 1, 2} {
		if !bytes.Equal(entry(own, i), entry(want, i)) {
			t.Errorf("table entry %d: got %x, want %x", i, entry(own, i), entry(want, i))
		}
	}
	if !bytes.Equal(entry(own, 4)[8:], entry(want, 4)[8:]) {
		t.Errorf("table entry 4 beyond Pointer: got %x, want %x", entry(own, 4)[8:], entry(want, 4)[8:])
	}
	if !bytes.Equal(own[160:289], want[160:289]) {
		t.Errorf("data of sections 1-3 differs")
	}
	e3 := entry(own, 3)
	if e3[21] != bpx.FlagCRC32 || !bytes.Equal(own[289:289+43], foxSentence) {
		t.Errorf("section 4: flags %#x, want raw CRC32 (no gain from xz)", e3[21])
	}
}
