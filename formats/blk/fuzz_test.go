package blk

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/sd"
	"github.com/klauspost/compress/zlib"
)

// fuzzDecoder has a small name map and, when the samples are present, the
// sample nm and dictionary, so every kind is reachable.
func fuzzDecoder(f *testing.F) *Decoder {
	d := &Decoder{NameMap: &NameMap{Names: []string{"a", "b", "hello"}}, MaxSize: 1 << 20}
	dir := os.Getenv("BPX_SAMPLES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "samples")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "blk", "nm")); err == nil {
		if nm, err := ParseNameMap(b); err == nil {
			d.NameMap = nm
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "blk", sampleDict)); err == nil {
		d.Dicts = [][]byte{b}
	}
	return d
}

func FuzzDecode(f *testing.F) {
	d := fuzzDecoder(f)
	for _, seed := range fuzzSeeds(f, d) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := d.Decode(data)
		if err != nil {
			return
		}
		checkDecoded(t, d, b)
	})
}

// fuzzSeeds returns the sample files (when present) and hand-made files.
func fuzzSeeds(f *testing.F, d *Decoder) [][]byte {
	seeds := [][]byte{
		{1, 0, 1, 0, 0, 0, 0, 0},                   // empty FAT
		{3, 0, 1, 0, 0, 0, 0, 0},                   // empty SLIM
		{3, 1, 2, 'x', 0, 1, 1, 0, 0, 0, 1, 0},     // SLIM with a local name
		{0, 'B', 'B', 'F', 3, 0, 0, 0, 8, 0, 0, 0}, // BBF3 stub
	}
	dir := os.Getenv("BPX_SAMPLES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "samples")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "blk", "section_*.blk"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			seeds = append(seeds, b)
			if b[0] == 0 { // also as "\0BBz"
				var z bytes.Buffer
				w := zlib.NewWriter(&z)
				w.Write(b)
				w.Close()
				hdr := binary.LittleEndian.AppendUint32([]byte("\x00BBz"), uint32(len(b)))
				hdr = binary.LittleEndian.AppendUint32(hdr, uint32(z.Len()))
				seeds = append(seeds, append(hdr, z.Bytes()...))
			}
		}
	}
	return append(seeds, generatedSeeds(f, d)...)
}

// FuzzFromSD feeds BPXSD bytes to FromSD: it must fail cleanly or give a
// tree that converts back to the same tree.
func FuzzFromSD(f *testing.F) {
	for _, tree := range []*Block{sectionTree(), genTree(1, genOptions{blocks: 5, params: 3, oddNames: true, nanBits: true, maxDepth: 3})} {
		o, err := ToSD(tree)
		if err != nil {
			f.Fatal(err)
		}
		data, err := sd.Encode(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := sd.Decode(data)
		if err != nil {
			return
		}
		b, err := FromSD(o)
		if err != nil {
			return
		}
		o2, err := ToSD(b)
		if err != nil {
			t.Fatalf("ToSD of a FromSD tree: %v", err)
		}
		b2, err := FromSD(o2)
		if err != nil || !Equal(b, b2) {
			t.Fatalf("SD round trip: %v", err)
		}
	})
}
