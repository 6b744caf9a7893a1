package testbpx

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/gobpx/bpx"
)

// ShaderBomb returns a shader pack in the layout of the reference SDK 4
// whose Shader sections decode to far more than the file holds: two
// symbols, "a" (a pixel-stage texture in register 3) and "b" (a
// vertex-stage constant buffer, no register), in raw Strings and
// SymbolTable sections with weak checksums, followed by shaders xz Shader
// sections of size bytes each (a vertex stage byte, then zeros) with
// CRC32 checksums. The writer compresses one Shader section, streamed from
// a reader of zeros, and copies it for the others, so building four
// sections of 256 MiB costs one compression and little memory; the file
// is about 40 KiB per 256 MiB section.
func ShaderBomb(t testing.TB, shaders int, size int64) []byte {
	t.Helper()
	var one bytes.Buffer
	w := bpx.NewWriter(&one)
	sw, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(sw, io.LimitReader(zeros{}, size)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src, err := bpx.NewReader(bytes.NewReader(one.Bytes()), int64(one.Len()))
	if err != nil {
		t.Fatal(err)
	}

	// TypeExt: AssemblyHash 0, 2 symbols, target Any, type 'P'.
	ext := [16]byte{8: 2, 10: 0xFF, 11: 'P'}
	var out bytes.Buffer
	w = bpx.NewWriter(&out)
	w.SetType('S')
	w.SetTypeExt(ext)
	weak := bpx.SectionOptions{Checksum: bpx.ChecksumWeak}
	if err := w.WriteSection(0xFF, weak, []byte("a\x00b\x00")); err != nil {
		t.Fatal(err)
	}
	tab := LE(uint32(0), uint32(0x00FFFFFF), uint16(0x290), uint8(0), uint8(3),
		uint32(2), uint32(0x00FFFFFF), uint16(0x1), uint8(2), uint8(0xFF))
	if err := w.WriteSection(2, weak, tab); err != nil {
		t.Fatal(err)
	}
	for range shaders {
		if err := w.CopySection(src.Sections[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// zeros reads as an endless run of zero bytes: stage 0 (vertex), then
// zero code.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// PackageNamesBomb returns a revision 2 package (TypeExt all zero) of one
// 5-byte object, "hello", named "a", whose xz strings section decodes to
// size bytes: "a", a NUL, then zeros. A reader that only counts objects
// need not decompress it.
func PackageNamesBomb(t testing.TB, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(bpx.TypePackage)
	if err := w.WriteSection(1, bpx.SectionOptions{}, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(2, bpx.SectionOptions{}, LE(uint64(5), uint32(0), uint32(0), uint32(0))); err != nil {
		t.Fatal(err)
	}
	sw, err := w.CreateSection(0xFF, bpx.SectionOptions{Compression: bpx.CompressXZ})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(sw, io.MultiReader(bytes.NewReader([]byte("a\x00")), zeros{}), size); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WorstBPXSD returns a BPXSD object of about size bytes (at most 255
// arrays of 255 entries) in the shape that takes the most memory per byte
// decoded: arrays of empty arrays or, with nulls, of nulls.
func WorstBPXSD(size int, nulls bool) []byte {
	inner := bytes.Repeat([]byte{13, 0}, 255)
	if nulls {
		inner = bytes.Repeat([]byte{0}, 255)
	}
	entry := append([]byte{13, 255}, inner...)
	arrays := min(max((size-1)/(8+2+255*len(entry)), 1), 255)
	out := []byte{byte(arrays)}
	for i := range arrays {
		out = binary.LittleEndian.AppendUint64(out, uint64(i)+1)
		out = append(out, 13, 255)
		for range 255 {
			out = append(out, entry...)
		}
	}
	return out
}
