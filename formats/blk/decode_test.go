package blk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"
)

func TestDecodeSamples(t *testing.T) {
	d := sampleDecoder(t)
	for _, name := range []string{
		"section_fat.blk", "section_fat_s.blk", "section_fat_zst.blk",
		"section_slim.blk", "section_slim_zst.blk", "section_slim_zst_dict.blk",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := d.Decode(readSample(t, name))
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, got, sectionTree())
		})
	}
}

// TestDecodeBBF3 reads section_bbf.blk the way DagorEngine's
// blk_readBBF3.cpp does. kotiq's generator wrote two fields in a way the
// engine reads differently from the README's tree:
//   - bool: the engine takes the value from bit 31 of the param header
//     (hdr & 0x80000000); the sample header is 0x09000091, so false
//     (kotiq encodes true as type 0x09 and false as 0x89, inverted);
//   - color: the engine reads a u32 c and builds E3DCOLOR(c>>24, c>>16,
//     c>>8, c); the sample bytes 01 02 03 04 give r=4 g=3 b=2 a=1.
//
// Everything else matches the section tree.
func TestDecodeBBF3(t *testing.T) {
	got, err := Decode(readSample(t, "section_bbf.blk"))
	if err != nil {
		t.Fatal(err)
	}
	want := sectionTree()
	alpha := want.Child("alpha")
	alpha.Params[1].Value = Bool(false)
	alpha.Params[2].Value = ColorValue(Color{R: 4, G: 3, B: 2, A: 1})
	mustEqual(t, got, want)
}

func TestDecodeNeedsNameMapAndDict(t *testing.T) {
	for _, name := range []string{"section_slim.blk", "section_slim_zst.blk", "section_slim_zst_dict.blk"} {
		if _, err := Decode(readSample(t, name)); !errors.Is(err, ErrNameMapRequired) {
			t.Errorf("%s without nm: %v, want ErrNameMapRequired", name, err)
		}
	}
	d := sampleDecoder(t)
	d2 := &Decoder{nameMap: d.nameMap}
	if _, err := d2.Decode(readSample(t, "section_slim_zst_dict.blk")); !errors.Is(err, ErrDictRequired) {
		t.Errorf("dict kind without dict: %v, want ErrDictRequired", err)
	}
	// A dictionary is registered, but not the one the frame names.
	d3 := &Decoder{nameMap: d.nameMap, dicts: [][]byte{otherDict(t)}}
	if _, err := d3.Decode(readSample(t, "section_slim_zst_dict.blk")); !errors.Is(err, ErrDictRequired) {
		t.Errorf("wrong dict: %v, want ErrDictRequired", err)
	}
}

func TestParseNameMap(t *testing.T) {
	nm, err := ParseNameMap(readSample(t, "nm"))
	if err != nil {
		t.Fatal(err)
	}
	names, err := readNames(&reader{b: readSample(t, "names")})
	if err != nil {
		t.Fatal(err)
	}
	if len(nm.Names) != 15 || len(names) != 15 {
		t.Fatalf("got %d and %d names, want 15", len(nm.Names), len(names))
	}
	for i := range names {
		if nm.Names[i] != names[i] {
			t.Errorf("name %d: %q != %q", i, nm.Names[i], names[i])
		}
	}
	if nm.Names[14] != "hello" || nm.Names[0] != "vec4f" {
		t.Errorf("names = %q", nm.Names)
	}
	if got := nm.DictFileName(); got != sampleDict {
		t.Errorf("DictFileName = %s", got)
	}
	if _, err := ParseNameMap(readSample(t, "nm")[:39]); !errors.Is(err, ErrFormat) {
		t.Errorf("short nm: %v", err)
	}
}

// bbz wraps a BBF3 file the way the engine's "\0BBz" loader expects:
// magic, u32 unpacked size, u32 packed size, zlib stream.
func bbz(t *testing.T, plain []byte, claim uint32) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(plain)
	w.Close()
	out := []byte{0, 'B', 'B', 'z'}
	out = binary.LittleEndian.AppendUint32(out, claim)
	out = binary.LittleEndian.AppendUint32(out, uint32(z.Len()))
	return append(out, z.Bytes()...)
}

func TestDecodeBBz(t *testing.T) {
	bbf := readSample(t, "section_bbf.blk")
	got, err := Decode(bbz(t, bbf, uint32(len(bbf))))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Decode(bbf)
	mustEqual(t, got, want)
	if _, err := Decode(bbz(t, bbf, uint32(len(bbf))+1)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "inflates to") {
		t.Errorf("size mismatch: %v", err)
	}
	if _, err := Decode(bbz(t, []byte("not bbf at all"), 14)); !errors.Is(err, ErrFormat) {
		t.Errorf("non-BBF plaintext: %v", err)
	}
	// A BBz inside a BBz is refused (no recursion).
	inner := bbz(t, bbf, uint32(len(bbf)))
	if _, err := Decode(bbz(t, inner, uint32(len(inner)))); !errors.Is(err, ErrFormat) {
		t.Errorf("nested BBz: %v", err)
	}
}

// DecodeBody reads every kind without its kind byte; error offsets count
// from the start of the body.
func TestDecodeBody(t *testing.T) {
	tree := genTree(3, genOptions{blocks: 6, params: 3, oddNames: true, maxDepth: 3})
	nm := &NameMap{Names: []string{"a", "speed", "dup"}}
	d := &Decoder{nameMap: nm}
	for _, e := range []*Encoder{{kind: KindFAT}, {kind: KindFATZstd}, {kind: KindSlim, nameMap: nm}, {kind: KindSlimZstd, nameMap: nm}} {
		data, err := e.Encode(tree)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.DecodeBody(e.kind, data[1:])
		if err != nil || !Equal(got, tree) {
			t.Fatalf("%v body: %v", e.kind, err)
		}
		// The wrong kind fails cleanly.
		wrong := map[Kind]Kind{KindFAT: KindFATZstd, KindFATZstd: KindFAT, KindSlim: KindSlimZstd, KindSlimZstd: KindSlim}
		if _, err := d.DecodeBody(wrong[e.kind], data[1:]); err == nil {
			t.Errorf("%v body decoded as another kind", e.kind)
		}
		if e.kind != KindFAT {
			continue
		}
		for n := 1; n < len(data); n++ {
			_, whole := d.Decode(data[:n])
			_, body := d.DecodeBody(KindFAT, data[1:n])
			var fw, fb *FormatError
			if !errors.As(whole, &fw) || !errors.As(body, &fb) || fb.Offset != fw.Offset-1 || fb.What != fw.What {
				t.Fatalf("truncated at %d: file error %v, body error %v", n, whole, body)
			}
		}
	}
	bbf := writeBBF3(bbfTree())
	want, err := Decode(bbf)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.DecodeBody(KindBBF, bbf[1:]); err != nil || !Equal(got, want) {
		t.Fatalf("BBF body: %v", err)
	}
	if _, err := d.DecodeBody(Kind(6), []byte{0}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("kind 6: %v", err)
	}
}

// TestDecodeBodyErrorOffsets: for damaged files of every kind, the error
// of DecodeBody on the body is the error of Decode on the file, with an
// offset one less when it counts in the file itself; offsets in a
// decompressed unit (In set) count from that unit and stay as they are.
func TestDecodeBodyErrorOffsets(t *testing.T) {
	tree := genTree(5, genOptions{blocks: 4, params: 3, maxDepth: 2})
	nm := &NameMap{Names: []string{"a", "speed"}}
	d := &Decoder{nameMap: nm}
	files := map[Kind][]byte{KindBBF: writeBBF3(bbfTree())}
	for _, e := range []*Encoder{{kind: KindFAT}, {kind: KindFATZstd}, {kind: KindSlim, nameMap: nm}, {kind: KindSlimZstd, nameMap: nm}} {
		data, err := e.Encode(tree)
		if err != nil {
			t.Fatal(err)
		}
		files[e.kind] = data
	}
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for kind, data := range files {
		for range 300 {
			bad := bytes.Clone(data)
			for range 1 + r.IntN(3) {
				bad[1+r.IntN(len(bad)-1)] = byte(r.Uint32())
			}
			bad = bad[:1+r.IntN(len(bad))]
			_, whole := d.Decode(bad)
			_, body := d.DecodeBody(kind, bad[1:])
			var fw, fb *FormatError
			if !errors.As(whole, &fw) {
				if (whole == nil) != (body == nil) || whole != nil && whole.Error() != body.Error() {
					t.Fatalf("%v: file error %v, body error %v", kind, whole, body)
				}
				continue
			}
			want := *fw
			if want.In == "" {
				want.Offset--
			}
			if !errors.As(body, &fb) || fb.Error() != want.Error() {
				t.Fatalf("%v: file error %v, body error %v, want %v", kind, whole, body, &want)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Errorf("only %d format errors compared", checked)
	}
}
