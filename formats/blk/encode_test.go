package blk

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The engine's writer rules reproduce kotiq's samples byte for byte.
func TestEncodeMatchesSamples(t *testing.T) {
	nm := sampleDecoder(t).nameMap
	for _, tc := range []struct {
		file string
		enc  Encoder
	}{
		{"section_fat.blk", Encoder{kind: KindFAT}},
		{"section_fat_s.blk", Encoder{kind: KindFAT, internStrings: true}},
		{"section_slim.blk", Encoder{kind: KindSlim, nameMap: nm}},
	} {
		got, err := tc.enc.Encode(sectionTree())
		if err != nil {
			t.Fatal(err)
		}
		if want := readSample(t, tc.file); !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  % x\nwant % x", tc.file, got, want)
		}
	}
}

// allKinds returns an encoder per writable kind, with the sample nm and
// dictionary.
func allKinds(t testing.TB) []*Encoder {
	d := sampleDecoder(t)
	return []*Encoder{
		{kind: KindFAT},
		{kind: KindFATZstd},
		{kind: KindSlim, nameMap: d.nameMap},
		{kind: KindSlimZstd, nameMap: d.nameMap, level: zstd.SpeedFastest},
		{kind: KindSlimZstdDict, nameMap: d.nameMap, dict: d.dicts[0], level: zstd.SpeedDefault},
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	d := sampleDecoder(t)
	trees := []*Block{sectionTree(), {}}
	for seed := uint64(0); seed < 40; seed++ {
		trees = append(trees, genTree(seed, genOptions{blocks: 30, params: 5, oddNames: true, nanBits: true, maxDepth: 6}))
	}
	trees = append(trees, genTree(99, genOptions{blocks: 5, params: 2, bigBlocks: true, maxDepth: 2}))
	for _, e := range allKinds(t) {
		for i, tree := range trees {
			data, err := e.Encode(tree)
			if err != nil {
				t.Fatalf("%v tree %d: %v", e.kind, i, err)
			}
			if Kind(data[0]) != e.kind {
				t.Fatalf("kind byte %d, want %d", data[0], e.kind)
			}
			got, err := d.Decode(data)
			if err != nil {
				t.Fatalf("%v tree %d: decode: %v", e.kind, i, err)
			}
			mustEqual(t, got, tree)
		}
	}
}

// SLIM files keep names missing from the shared map as local names.
func TestEncodeSlimLocalNames(t *testing.T) {
	d := sampleDecoder(t)
	tree := sectionTree()
	tree.Add("not_shared", Str("also new")).AddBlock("fresh").Add("int", Int(1))
	data, err := (&Encoder{kind: KindSlim, nameMap: d.nameMap}).Encode(tree)
	if err != nil {
		t.Fatal(err)
	}
	// names count 2: "not_shared", "fresh"; the string stays in the payload.
	if !bytes.HasPrefix(data, []byte("\x03\x02\x11not_shared\x00fresh\x00")) {
		t.Fatalf("local names section: % x", data[:24])
	}
	got, err := d.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, tree)
}

// With PackLikeEngine, a small SLIM body that zstd would grow stays
// uncompressed (kind 3), as the engine writes it; a larger one is packed.
func TestEncodePackLikeEngine(t *testing.T) {
	d := sampleDecoder(t)
	small := &Block{}
	small.Add("int", Int(1))
	for _, tc := range []struct {
		tree *Block
		want Kind
	}{{small, KindSlim}, {sectionTree(), KindSlimZstdDict}} {
		e := &Encoder{kind: KindSlimZstdDict, nameMap: d.nameMap, dict: d.dicts[0], packLikeEngine: true}
		data, err := e.Encode(tc.tree)
		if err != nil {
			t.Fatal(err)
		}
		if Kind(data[0]) != tc.want {
			t.Errorf("kind %v, want %v", Kind(data[0]), tc.want)
		}
		got, err := d.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, got, tc.tree)
	}
}

func TestEncodeLayout(t *testing.T) {
	// Same wide value twice, a string twice and a string equal to a name:
	// one payload copy each, the name reference tagged.
	b := &Block{}
	b.Add("s", Str("xy")).Add("p", Point2(1, 2)).Add("t", Str("xy")).Add("q", Point2(1, 2)).Add("u", Str("p"))
	data, err := Encode(b, KindFAT)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 5, 10, 's', 0, 'p', 0, 't', 0, 'q', 0, 'u', 0,
		1, 5, 12, // blocks, params, payload size
		'x', 'y', 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, // "xy\0", pad, (1, 2)
		0, 0, 0, 1, 0, 0, 0, 0,
		1, 0, 0, 4, 4, 0, 0, 0,
		2, 0, 0, 1, 0, 0, 0, 0,
		3, 0, 0, 4, 4, 0, 0, 0,
		4, 0, 0, 1, 1, 0, 0, 0x80,
		0, 5, 0}
	if !bytes.Equal(data, want) {
		t.Fatalf("got  % x\nwant % x", data, want)
	}
}

// The engine keeps the name of the root block (block 0's name id) when it
// reads a file, and writes it when it saves a named block: Decode and
// Encode do the same, so a named root round-trips byte for byte.
func TestNamedRootRoundTrip(t *testing.T) {
	file := []byte{0x01, // FAT
		1, 2, 'r', 0, // one name, "r"
		1, 1, 3, // 1 block, 1 param, 3 payload bytes
		'r', 'r', 0, // payload: the string "rr"
		0, 0, 0, 1, 0, 0, 0, 0, // param "r" = string at payload 0
		1, 1, 0} // block 0: name "r", 1 param, no children
	b, err := Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "r" || len(b.Params) != 1 || b.Params[0].Value != Str("rr") {
		t.Fatalf("decoded %+v", b)
	}
	d := sampleDecoder(t)
	for _, e := range allKinds(t) {
		data, err := e.Encode(b)
		if err != nil {
			t.Fatalf("%v: %v", e.kind, err)
		}
		back, err := d.Decode(data)
		if err != nil || !Equal(back, b) {
			t.Fatalf("%v: round trip gave %+v, %v", e.kind, back, err)
		}
		if e.kind == KindFAT && !bytes.Equal(data, file) {
			t.Errorf("FAT:\ngot  % x\nwant % x", data, file)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	nul := &Block{}
	nul.Add("a\x00b", Int(1))
	nulStr := &Block{}
	nulStr.Add("a", Str("x\x00"))
	bad := &Block{}
	bad.Params = append(bad.Params, Param{"z", Value{}})
	wide := &Block{}
	for i := 0; i < 70000; i++ {
		wide.Add("i", Int(1))
	}
	deep := &Block{}
	for c, i := deep, 0; i <= MaxDepth+1; i++ {
		c = c.AddBlock("d")
	}
	for _, tc := range []struct {
		name string
		enc  Encoder
		b    *Block
		err  error
		what string
	}{
		{"NUL in name", Encoder{kind: KindFAT}, nul, ErrEncode, "NUL"},
		{"NUL in string", Encoder{kind: KindFAT}, nulStr, ErrEncode, "NUL"},
		{"invalid type", Encoder{kind: KindFAT}, bad, ErrEncode, "invalid type"},
		{"too many params", Encoder{kind: KindFAT}, wide, ErrEncode, "max 65535"},
		{"too deep", Encoder{kind: KindFAT}, deep, ErrEncode, "deeper"},
		{"BBF", Encoder{kind: KindBBF}, sectionTree(), ErrUnsupported, "BBF"},
		{"slim without nm", Encoder{kind: KindSlim}, sectionTree(), ErrNameMapRequired, "SLIM"},
		{"dict kind without dict", Encoder{kind: KindSlimZstdDict, nameMap: &NameMap{}}, sectionTree(), ErrDictRequired, "SLIM_ZST_DICT"},
	} {
		_, err := tc.enc.Encode(tc.b)
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("%s: err = %v, want %v mentioning %q", tc.name, err, tc.err, tc.what)
		}
	}
}

func TestNameMapMarshalRoundTrip(t *testing.T) {
	dict := readSample(t, sampleDict)
	nm := NewNameMap([]string{"a", "b", "ünï"}, dict)
	data, err := nm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseNameMap(data)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(back.Names, ",") != "a,b,ünï" || back.DictFileName() != sampleDict || back.NamesDigest != nm.NamesDigest {
		t.Fatalf("got %+v", back)
	}
	// The sample nm's digests follow the same convention.
	sample, _ := ParseNameMap(readSample(t, "nm"))
	if NewNameMap(sample.Names, dict).NamesDigest != sample.NamesDigest {
		t.Error("names digest differs from the sample's sha1 convention")
	}
}

// A names section larger than the engine reads is an encoding error, and
// the size check cannot overflow an int on 32-bit platforms.
func TestCheckNamesSize(t *testing.T) {
	if err := checkNamesSize([]string{"ab", "c"}, 5); err != nil {
		t.Errorf("5 bytes within a limit of 5: %v", err)
	}
	if err := checkNamesSize([]string{"ab", "cd"}, 5); !errors.Is(err, ErrEncode) {
		t.Errorf("6 bytes past a limit of 5: %v", err)
	}
	huge := strings.Repeat("x", 1<<20)
	if err := checkNamesSize([]string{"a", huge}, 1<<20); !errors.Is(err, ErrEncode) {
		t.Errorf("a name as large as the limit: %v", err)
	}
}
