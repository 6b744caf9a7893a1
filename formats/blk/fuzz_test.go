package blk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
	"github.com/gobpx/bpx/sd"
	"github.com/klauspost/compress/zlib"
)

// fuzzDecoder has a small name map and, when the samples are present, the
// sample nm and dictionary, so every kind is reachable.
func fuzzDecoder(f *testing.F) *Decoder {
	d := &Decoder{nameMap: &NameMap{Names: []string{"a", "b", "hello"}}, maxSize: 1 << 20}
	dir := samples.Root() // "" when absent: nothing is found
	if b, err := os.ReadFile(filepath.Join(dir, "blk", "nm")); err == nil {
		if nm, err := ParseNameMap(b); err == nil {
			d.nameMap = nm
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "blk", sampleDict)); err == nil {
		d.dicts = [][]byte{b}
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
			checkErrorClass(t, err)
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
	dir := samples.Root() // "" when absent: nothing is found
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
			checkErrorClass(t, err)
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

// FuzzParseText: the text reader must fail cleanly or give a tree whose
// text reads back to the same tree.
func FuzzParseText(f *testing.F) {
	f.Add([]byte(sectionText))
	f.Add([]byte("/* c */ include \"f\"\na:i=0x10; b{c:t='''\nx\n'''}\n"))
	// The forms of the engine's parser: arrays, directives, includes,
	// simple strings, comments in values, numbers as the engine reads them.
	f.Add([]byte(directivesText))
	f.Add([]byte("param1:i[]=[42; 43; 44;]\nparam2:t[]=[\n  \"p1\"\n  'p2'\n]\np:p2[]=[1,2;3 , 4\n]\ne:b[]=[]\n"))
	f.Add([]byte("\"@override:a[-1]\":i=5\n\"@delete-all:packBin\":b=false; packBin:b=yes\n\"@clone-last:f\"{}\n\"@override-last\"\n{ x:t=y }\n"))
	f.Add([]byte("include fftWaterList.blk\nINCLUDE\n 'b.blk'\nname=value\nq = \"a b\"\na:\"i\"=1\nb :t= x /* c */ y // z\n"))
	f.Add([]byte("a:i=4294967295\nb:i64=0xffffffffffffffff\nc:r=-inf\nd:r=nan(1)\ne:c=1,2,3,300\nf:p3=1,2,3,4\ng:m=[[1,2,3][4,5,6][7,8,9][1,2,3]]x\nh:r=.5e-3\n"))
	f.Add([]byte("\xEF\xBB\xBFs:t=\"~~~\"~n\"\nm:t=\"\"\"\n\n\n\"\"\"\n\"@null\"{}\n\"@include\":t=\"\"\nz:t=a\x00b"))
	for seed := uint64(0); seed < 3; seed++ {
		text, _ := genTree(seed, genOptions{blocks: 5, params: 3, oddNames: true, maxDepth: 3}).MarshalText()
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseText(data)
		if err != nil {
			checkErrorClass(t, err)
			return
		}
		text, err := b.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseText(text)
		if err != nil {
			t.Fatalf("written text does not parse: %v\n%q", err, text)
		}
		if !equalModuloNaN(again, b) {
			t.Fatalf("text round trip changed the tree\n%q", text)
		}
	})
}

// FuzzParseTypedJSON: the typed JSON reader must fail cleanly or give a
// tree that survives writing and reading again.
func FuzzParseTypedJSON(f *testing.F) {
	for seed := uint64(0); seed < 3; seed++ {
		var buf bytes.Buffer
		WriteTypedJSON(&buf, genTree(seed, genOptions{blocks: 5, params: 3, oddNames: true, nanBits: true, maxDepth: 3}))
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseTypedJSON(data)
		if err != nil {
			checkErrorClass(t, err)
			return
		}
		var buf bytes.Buffer
		WriteTypedJSON(&buf, b)
		again, err := ParseTypedJSON(buf.Bytes())
		if err != nil || !Equal(again, b) {
			t.Fatalf("typed JSON round trip: %v", err)
		}
	})
}

// checkErrorClass fails unless err matches a bpx sentinel, as the module
// promises for every decoder.
func checkErrorClass(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
		t.Fatalf("error %v (%T) matches no bpx sentinel", err, err)
	}
}

// equalModuloNaN is Equal, except that all NaNs count as equal (the text
// form writes every NaN as "nan").
func equalModuloNaN(a, b *Block) bool {
	if a.Name != b.Name ||
		len(a.Params) != len(b.Params) || len(a.Blocks) != len(b.Blocks) {
		return false
	}
	for i := range a.Params {
		p, q := a.Params[i], b.Params[i]
		if p.Name != q.Name || p.Value.typ != q.Value.typ || p.Value.Str() != q.Value.Str() {
			return false
		}
		pw, _ := p.Value.raw()
		qw, _ := q.Value.raw()
		for j := range pw {
			x, y := pw[j], qw[j]
			isFloat := p.Value.typ == TypeReal || p.Value.typ == TypePoint2 || p.Value.typ == TypePoint3 || p.Value.typ == TypePoint4 || p.Value.typ == TypeMatrix
			if x != y && !(isFloat && x&0x7f800000 == 0x7f800000 && x&0x7fffff != 0 && y&0x7f800000 == 0x7f800000 && y&0x7fffff != 0) {
				return false
			}
		}
	}
	for i := range a.Blocks {
		if !equalModuloNaN(a.Blocks[i], b.Blocks[i]) {
			return false
		}
	}
	return true
}
