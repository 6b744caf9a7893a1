package model

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

func TestTypeExt(t *testing.T) {
	ext := TypeExt{VertexFormatHash: 0x8877665544332211}
	if got := ext.Marshal(); got != goldenExt {
		t.Fatalf("Marshal = % x", got)
	}
	if back, err := ParseTypeExt(goldenExt); err != nil || back != ext {
		t.Fatalf("ParseTypeExt = %v, %v", back, err)
	}
	if d := DescribeTypeExt(goldenExt); d != "model, vertex format hash 0x8877665544332211" {
		t.Errorf("DescribeTypeExt = %q", d)
	}
	bad := goldenExt
	bad[9] = 1
	_, err := ParseTypeExt(bad)
	var fe *bpx.FormatError
	if !errors.As(err, &fe) || fe.Offset != 33 || !errors.Is(err, ErrFormat) {
		t.Errorf("reserved byte 9: %v", err)
	}
	if d := DescribeTypeExt(bad); d != "invalid model TypeExt reserved byte 9 is 0x01, want 0 (byte 9)" {
		t.Errorf("DescribeTypeExt(bad) = %q", d)
	}
}

// The hand-made golden file decodes to the expected model, and Encode
// writes exactly those bytes back.
func TestGolden(t *testing.T) {
	for _, o := range []bpx.SectionOptions{{}, {Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: 0}} {
		file := container(t, 'M', goldenExt, o, goldenSections()...)
		m, err := decode(file, 12)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, goldenModel()) {
			t.Fatalf("decoded %+v", m)
		}
		if m.VertexArrays[0].Indices != m.IndexArrays[0] {
			t.Error("link does not point at the decoded IndexArray")
		}
		if enc := encode(t, m, o); !bytes.Equal(enc, file) {
			t.Errorf("Encode differs from the hand-made file:\n% x\n% x", enc, file)
		}
	}
}

func TestRoundTripSeveralArrays(t *testing.T) {
	ia0 := &IndexArray{Indices: []uint32{0, 1, 2, 2, 1, 3}}
	ia1 := &IndexArray{Indices: []uint32{}}
	m := &Model{
		TypeExt: TypeExt{VertexFormatHash: 7},
		VertexArrays: []*VertexArray{
			{MaterialHash: 1, VertexSize: 8, Data: make([]byte, 32), Indices: ia0},
			{MaterialHash: 2, VertexSize: 8, Data: []byte{}},
			{MaterialHash: 3, VertexSize: 8, Data: make([]byte, 40), Indices: ia0},
		},
		IndexArrays: []*IndexArray{ia1, ia0},
	}
	b := encode(t, m, bpx.SectionOptions{Checksum: bpx.ChecksumWeak})
	// Sections: 3 VertexArrays, then ia1 (section 3, link 4), ia0 (section 4, link 5).
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	va0, _ := r.Sections[0].Data()
	if link := le.Uint32(va0[12:]); link != 5 {
		t.Errorf("link written as %d, want 5 (1-based section 4)", link)
	}
	if r.FindSection(SectionStrings) != nil || len(r.Sections) != 5 {
		t.Errorf("%d sections", len(r.Sections))
	}
	got, err := Read(r, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %+v", got)
	}
	if got.VertexArrays[0].Indices != got.IndexArrays[1] || got.VertexArrays[2].Indices != got.IndexArrays[1] || got.VertexArrays[1].Indices != nil {
		t.Error("links not resolved to the right IndexArray")
	}
}

func TestReadErrors(t *testing.T) {
	o := bpx.SectionOptions{}
	with := func(edit func(s []sec) []sec) []byte {
		return container(t, 'M', goldenExt, o, edit(goldenSections())...)
	}
	setVA := func(v []byte) func([]sec) []sec { return func(s []sec) []sec { s[0].data = v; return s } }
	vaWith := func(off int, v ...any) []byte {
		b := bytes.Clone(goldenVA)
		copy(b[off:], raw(v...))
		return b
	}
	for _, c := range []struct {
		name    string
		file    []byte
		section int
		off     int64
		msg     string
	}{
		{"type", container(t, 'T', goldenExt, o, goldenSections()...), -1, 3, "type 'T' is not a model"},
		{"TypeExt", container(t, 'M', [16]byte{15: 1}, o, goldenSections()...), -1, 39, "reserved byte 15"},
		{"no VertexArray", with(func(s []sec) []sec { return s[1:] }), -1, 40, "no VertexArray section"},
		{"two BoneArrays", with(func(s []sec) []sec { return append(s, sec{4, goldenBones}) }), -1, 40 + 6*24, "second section of type 4 (section 6"},
		{"two Strings", with(func(s []sec) []sec { return append(s, sec{0xFF, nil}) }), -1, 40 + 6*24, "second section of type 255"},
		{"short VA header", with(setVA(goldenVA[:23])), 0, 23, "shorter than its 24-byte header"},
		{"VA reserved", with(setVA(vaWith(16, uint32(9)))), 0, 16, "Reserved is 0x9"},
		{"VA count too big", with(setVA(vaWith(8, uint32(4)))), 0, 8, "VertexCount 4 × VertexSize 12 is 48 bytes, the section holds 36"},
		{"VA count huge", with(setVA(vaWith(8, uint32(0xFFFFFFFF)))), 0, 8, "VertexCount 4294967295"},
		{"VA trailing", with(setVA(append(bytes.Clone(goldenVA), 0))), 0, 8, "the section holds 37"},
		{"link missing", with(setVA(vaWith(12, uint32(7)))), 0, 12, "IndexArray link 7 names section 6, the file has 6 sections"},
		{"link wrong type", with(setVA(vaWith(12, uint32(3)))), 0, 12, "names section 2 of type 4, not an IndexArray"},
		{"link to itself", with(setVA(vaWith(12, uint32(1)))), 0, 12, "names section 0 of type 2"},
		{"index beyond", with(func(s []sec) []sec { s[1].data = raw(uint32(3), uint32(0), uint32(3), uint32(2)); return s }), 1, 8,
			"index 1 is 3, beyond the 3 vertices of VertexArray section 0"},
		{"IndexCount", with(func(s []sec) []sec { s[1].data = raw(uint32(4), uint32(0), uint32(1), uint32(2)); return s }), 1, 0, "IndexCount 4 needs 16 bytes, the section holds 12"},
		{"short IA", with(func(s []sec) []sec { s[1].data = []byte{1, 0}; return s }), 1, 2, "shorter than its 4-byte header"},
		{"0 bones", with(func(s []sec) []sec { s[2].data = raw(uint16(0)); return s }), 2, 0, "BoneCount 0, want 1 to 1024"},
		{"1025 bones", with(func(s []sec) []sec { s[2].data = raw(uint16(1025)); return s }), 2, 0, "BoneCount 1025"},
		{"bones short", with(func(s []sec) []sec { s[2].data = goldenBones[:29]; return s }), 2, 0, "BoneCount 1 needs 28 bytes, the section holds 27"},
		{"no Strings", with(func(s []sec) []sec { return s[:5] }), 2, 26, "no Strings section"},
		{"name pointer", with(func(s []sec) []sec { s[5].data = []byte("ro"); return s }), 2, 26, "bone name"},
		{"frame trailing", with(func(s []sec) []sec { s[3].data = append(bytes.Clone(goldenFrame), 1, 2); return s }), 3, 44, "ends with 2 bytes"},
		{"frame bone", with(func(s []sec) []sec { s[3].data = raw(goldenFrame[:40], uint32(1)); return s }), 3, 40, "bone transform 0 names bone 1, BoneArray section 2 has 1"},
		{"frames without bones", with(func(s []sec) []sec { return append(s[:2], s[3:]...) }), 2, 0, "FrameArray without a BoneArray"},
	} {
		_, err := decode(c.file, 12)
		var fe *bpx.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("%s: error %v is not a *bpx.FormatError", c.name, err)
			continue
		}
		if fe.Section != c.section || fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v (section %d offset %d), want section %d offset %d %q", c.name, err, fe.Section, fe.Offset, c.section, c.off, c.msg)
		}
		if c.name != "name pointer" && !errors.Is(err, ErrFormat) {
			t.Errorf("%s: does not match model.ErrFormat", c.name)
		}
	}
	if _, err := decode(container(t, 'M', goldenExt, o, goldenSections()...), 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("vertex size 0: %v", err)
	}
	// Link 0 means none; unknown sections are ignored.
	m, err := decode(with(func(s []sec) []sec { s[0].data = vaWith(12, uint32(0)); return append(s, sec{9, []byte("?")}) }), 12)
	if err != nil || m.VertexArrays[0].Indices != nil || len(m.IndexArrays) != 1 {
		t.Errorf("link 0: %v", err)
	}
}

func TestValidate(t *testing.T) {
	va := func(size, n int) *VertexArray { return &VertexArray{VertexSize: size, Data: make([]byte, n)} }
	stray := &IndexArray{Indices: []uint32{0}}
	for _, c := range []struct {
		m   *Model
		msg string
	}{
		{&Model{}, "no VertexArray"},
		{&Model{VertexArrays: []*VertexArray{nil}}, "VertexArray 0 is nil"},
		{&Model{VertexArrays: []*VertexArray{va(0, 0)}}, "VertexSize 0"},
		{&Model{VertexArrays: []*VertexArray{va(12, 12), va(8, 8)}}, "VertexArray 1: VertexSize 8, VertexArray 0 has 12"},
		{&Model{VertexArrays: []*VertexArray{va(12, 13)}}, "13 bytes is not a whole number of 12-byte vertices"},
		{&Model{VertexArrays: []*VertexArray{{VertexSize: 4, Data: make([]byte, 8), Indices: stray}}}, "links to an IndexArray missing from Model.IndexArrays"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, IndexArrays: []*IndexArray{nil}}, "IndexArray 0 is nil"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, IndexArrays: []*IndexArray{stray, stray}}, "IndexArray 1 is listed twice"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, Bones: []Bone{}}, "0 bones, want 1 to 1024"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, Bones: make([]Bone, 1025)}, "1025 bones"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, Bones: []Bone{{Name: "a\x00b"}}}, "bone 0 name"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, Frames: []BoneTransform{}}, "a FrameArray needs a BoneArray"},
		{&Model{VertexArrays: []*VertexArray{va(4, 4)}, Bones: []Bone{{}}, Frames: []BoneTransform{{BoneID: 1}}}, "bone transform 0 names bone 1 of 1"},
	} {
		err := c.m.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %q", err, c.msg)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, c.m, bpx.SectionOptions{}); err == nil || buf.Len() != 0 {
			t.Errorf("Encode of an invalid model: %v, %d bytes", err, buf.Len())
		}
	}
	ia := &IndexArray{Indices: []uint32{0, 2}}
	m := &Model{VertexArrays: []*VertexArray{{VertexSize: 4, Data: make([]byte, 8), Indices: ia}}, IndexArrays: []*IndexArray{ia}}
	if err := m.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "index 1 of IndexArray 0 is 2, beyond its 2 vertices") {
		t.Errorf("index beyond: %v", err)
	}
}

// Links count the sections the caller created before Write.
func TestWriteAfterOtherSections(t *testing.T) {
	m := goldenModel()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	sw, err := w.CreateSection(bpx.SectionTypeStructuredData, bpx.SectionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sw.Write([]byte{0})
	if err := Write(w, m, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	va, _ := r.Sections[1].Data()
	if link := le.Uint32(va[12:]); link != 3 || r.Sections[2].Type != SectionIndexArray {
		t.Fatalf("link %d, section 2 of type %d", link, r.Sections[2].Type)
	}
	got, err := Read(r, 12)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("read back: %v", err)
	}
}
