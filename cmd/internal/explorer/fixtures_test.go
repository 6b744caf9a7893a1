package explorer

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// Fixtures built with the project's own writers.

// xzOpts stores sections xz-compressed with a CRC32, as the CLI does.
var xzOpts = bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}

// testImage is a w x h NRGBA image whose pixels all differ, with alpha
// varying when alpha is true (opaque otherwise).
func testImage(w, h int, seed uint8, alpha bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if alpha {
				a = uint8(x*37 + y*11 + int(seed))
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x*7 + int(seed)), uint8(y * 13), uint8(x ^ y + int(seed)*3), a})
		}
	}
	return img
}

// encodeTexture writes tex as a BPX texture file.
func encodeTexture(t testing.TB, tex *texture.Texture, o bpx.SectionOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := texture.Encode(&buf, tex, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textureFile builds a texture of format from img.
func textureFile(t testing.TB, img image.Image, f texture.Format) []byte {
	t.Helper()
	tex, err := texture.FromImage(img, f)
	if err != nil {
		t.Fatal(err)
	}
	return encodeTexture(t, tex, xzOpts)
}

// greyImage is an 8x4 grey image.
func greyImage() *image.Gray {
	img := image.NewGray(image.Rect(0, 0, 8, 4))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 9)
	}
	return img
}

// floatImage is a 4x4 float image with values outside [0, 1] and a NaN.
func floatImage() *texture.Gray32F {
	img := texture.NewGray32F(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = float32(i)/10 - 0.3
	}
	img.Pix[5] = float32(math.NaN())
	return img
}

// cubeImages are the 6 faces of a 2x2 cube map.
func cubeImages() []image.Image {
	faces := make([]image.Image, texture.CubeFaces)
	for i := range faces {
		faces[i] = testImage(2, 2, uint8(40*i), true)
	}
	return faces
}

// cubeFile is a cube map texture of cubeImages.
func cubeFile(t testing.TB) []byte {
	t.Helper()
	tex, err := texture.FromImages(cubeImages(), texture.FormatRGBA, texture.FlagCubeMap)
	if err != nil {
		t.Fatal(err)
	}
	return encodeTexture(t, tex, bpx.SectionOptions{})
}

// quad is the model fixture: a PNU quad with an index array, a second
// vertex array of one triangle without indices, and one bone.
var quadPositions = []float32{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 5, 5, 5, 6, 5, 5, 5, 6, 5}

func quadModel() *model.Model {
	pnu := func(p []float32) []byte {
		var vals []float32
		for i := 0; i < len(p); i += 3 {
			vals = append(vals, p[i], p[i+1], p[i+2], 0, 0, 1, p[i], p[i+1])
		}
		return model.Float32Bytes(vals...)
	}
	idx := &model.IndexArray{Indices: []uint32{0, 1, 2, 0, 2, 3}}
	return &model.Model{
		TypeExt: model.TypeExt{VertexFormatHash: bo3d.VertexFormatPNUHash},
		VertexArrays: []*model.VertexArray{
			{VertexSize: model.PNUSize, Data: pnu(quadPositions[:12]), Indices: idx},
			{VertexSize: model.PNUSize, Data: pnu(quadPositions[12:])},
		},
		IndexArrays: []*model.IndexArray{idx},
		Bones:       []model.Bone{{Head: [3]float32{0, 0, 0}, Tail: [3]float32{0, 1, 0}, Name: "root"}},
	}
}

// quadIndices are the indices /api/mesh gives for quadModel.
var quadIndices = []uint32{0, 1, 2, 0, 2, 3, 4, 5, 6}

func modelFile(t testing.TB, m *model.Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, m, xzOpts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawModelFile is a model container written section by section: one
// VertexArray of count vertices of size bytes linked to an IndexArray of
// indices (when indices is not nil), with the vertex format hash.
func rawModelFile(t testing.TB, hash uint64, count uint32, vertices []byte, indices []uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(bpx.TypeModel)
	w.SetTypeExt(model.TypeExt{VertexFormatHash: hash}.Marshal())
	hdr := make([]byte, model.VertexArrayHeaderSize)
	binary.LittleEndian.PutUint32(hdr[8:], count)
	if indices != nil {
		binary.LittleEndian.PutUint32(hdr[12:], 2) // section 1, 1-based
	}
	if err := w.WriteSection(model.SectionVertexArray, bpx.SectionOptions{}, hdr, vertices); err != nil {
		t.Fatal(err)
	}
	if indices != nil {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(indices)))
		for _, v := range indices {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		if err := w.WriteSection(model.SectionIndexArray, bpx.SectionOptions{}, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bo3dFile is a BO3D file of a root pivot and one triangle mesh whose
// triangle is tri.
func bo3dFile(t testing.TB, tri bo3d.Triangle) []byte {
	t.Helper()
	f := &bo3d.File{Version: bo3d.Version, FloatBits: 32, Entities: []bo3d.Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}},
		{Parent: 0, Name: "tri", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}, Mesh: &bo3d.Mesh{
			Vertices: []bo3d.Vertex{
				{Position: [3]float32{0, 0, 0}, Normal: [3]float32{0, 0, 1}},
				{Position: [3]float32{2, 0, 0}, Normal: [3]float32{0, 0, 1}},
				{Position: [3]float32{0, 3, 0}, Normal: [3]float32{0, 1, 0}},
			},
			Triangles: []bo3d.Triangle{tri},
			Alpha:     1,
			Bones:     []bo3d.Bone{{Entity: 0, First: 0, Last: 2}},
		}},
	}}
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sdObject is the BPXSD fixture.
func sdObject() *sd.Object {
	return sd.NewObject().Set("name", sd.String("hero")).Set("hp", sd.Int32(100)).
		Set("pos", sd.Array(sd.Float32(1.5), sd.Float32(-2)))
}

func sdBytes(t testing.TB) []byte {
	t.Helper()
	b, err := sd.Encode(sdObject(), sd.WithDebugNames())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// blkText is the BLK fixture as text.
const blkText = "speed:r=1.5\r\nunit{\r\n  name:t=\"tank\"\r\n}\r\n"

func blkFile(t testing.TB) []byte { return fatBLK(t, blkText) }

// fatBLK encodes the BLK text as a FAT binary BLK file.
func fatBLK(t testing.TB, text string) []byte {
	t.Helper()
	b, err := blk.ParseText([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := blk.Encode(b, blk.KindFAT)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// tableFile is a container holding a table "units" of 3 rows, the second
// one free, and its strings; and a metadata section.
func tableFile(t testing.TB) []byte {
	t.Helper()
	strs := &bpxstrings.Builder{}
	tb, err := table.NewBuilder(strs, "units", []table.Column{
		{Name: "id", Type: table.Uint32, Len: 1},
		{Name: "name", Type: table.Varchar, Len: 8},
		{Name: "pos", Type: table.Float32, Len: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]any{{uint32(1), "tank", []float32{1, 2}}, {uint32(2), "gone", []float32{0, 0}}, {uint32(3), "plane", []float32{-1, 0.5}}} {
		if _, err := tb.Append(r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.SetFree(1, true); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	if err := w.WriteSection(bpx.SectionTypeTable, xzOpts, tb.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(bpx.SectionTypeStrings, bpx.SectionOptions{}, strs.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(bpx.SectionTypeStructuredData, bpx.SectionOptions{}, sdBytes(t)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngBytes is img as PNG.
func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packageFile is a package holding the named objects.
func packageFile(t testing.TB, objs map[string][]byte, opts ...pack.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	if err := w.SetMetadata(sdObject()); err != nil {
		t.Fatal(err)
	}
	for name, b := range objs {
		ow, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ow.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// newServer serves files (name, bytes pairs).
func newPreviewServer(t testing.TB, files ...any) *Server {
	t.Helper()
	var fs []File
	for i := 0; i < len(files); i += 2 {
		b := files[i+1].([]byte)
		fs = append(fs, File{Name: files[i].(string), R: bytes.NewReader(b), Size: int64(len(b))})
	}
	s, err := New(fs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
