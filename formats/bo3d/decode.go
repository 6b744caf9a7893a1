package bo3d

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gobpx/bpx/internal/half"
)

// MaxFileSize is the largest input Read accepts: the header plus the
// largest entity list the int32 length field can describe.
const MaxFileSize = HeaderSize + math.MaxInt32

// Read reads a whole BO3D file from r and decodes it. It reads at most
// MaxFileSize bytes and returns an error matching ErrTooLarge beyond that
// (on 32-bit platforms the limit is math.MaxInt-1 bytes, what a slice can
// hold). The entity-list length in the header is used, up to readHint
// bytes, to size the buffer; it is never trusted beyond that.
func Read(r io.Reader) (*File, error) {
	b, err := readLimited(r, maxRead)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// readHint caps the buffer Read allocates up front from the header's
// entity-list length.
const readHint = 1 << 20

// maxRead is MaxFileSize where an int holds it.
const maxRead = int(min(MaxFileSize, math.MaxInt-1))

// readLimited reads r to its end, failing with ErrTooLarge past limit
// bytes (limit < math.MaxInt). A short header is returned as it is, for
// Decode to report.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	var hdr [HeaderSize]byte
	n, err := io.ReadFull(r, hdr[:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return hdr[:n], nil
	}
	if err != nil {
		return nil, err
	}
	hint := int(min(max(int64(int32(le32(hdr[:], 12))), 0), readHint))
	b := make([]byte, HeaderSize, min(HeaderSize+hint+512, limit+1))
	copy(b, hdr[:])
	for {
		if len(b) > limit {
			return nil, fmt.Errorf("bo3d: more than %d bytes: %w", limit, ErrTooLarge)
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, min(len(b), limit+1-len(b))) // doubles, up to limit+1
		}
		n, err := r.Read(b[len(b):min(cap(b), limit+1)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// UnmarshalBinary decodes data into f, replacing its contents.
func (f *File) UnmarshalBinary(data []byte) error {
	g, err := Decode(data)
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// Decode decodes a BO3D file held in b. It makes every check bOGL's loader
// makes, and more (see the package documentation); any failure is a
// *FormatError naming the entity and the offset. The result does not alias
// b. Bytes after the last entity, inside an entity after its last list, and
// in padding are ignored.
func Decode(b []byte) (*File, error) {
	n := int64(len(b))
	if n < HeaderSize {
		return nil, formatErr(-1, 0, "file is %d bytes, shorter than the %d-byte header", n, HeaderSize)
	}
	if m := le32(b, 0); m != Magic {
		return nil, formatErr(-1, 0, "bad magic %#08x (want \"BO3D\")", m)
	}
	f := &File{Version: int32(le32(b, 4))}
	if f.Version > Version {
		return nil, &FormatError{Entity: -1, Offset: 4, What: fmt.Sprintf("version %d is newer than %d", f.Version, Version), Err: ErrUnsupported}
	}
	count := int64(int32(le32(b, 8)))
	listLen := int64(int32(le32(b, 12)))
	bits := int32(le32(b, 16))
	if bits != 16 && bits != 32 {
		return nil, &FormatError{Entity: -1, Offset: 16, What: fmt.Sprintf("vertex float width %d (want 16 or 32)", bits), Err: ErrUnsupported}
	}
	f.FloatBits = int(bits)
	if count <= 0 {
		return nil, formatErr(-1, 8, "entity count %d is not positive", count)
	}
	if count > (n-HeaderSize)/PivotHeaderSize {
		return nil, formatErr(-1, 8, "entity count %d cannot fit in the %d bytes after the header", count, n-HeaderSize)
	}
	if listLen < 0 || listLen > n-HeaderSize {
		return nil, formatErr(-1, 12, "entity list length %d does not fit in the %d bytes after the header", listLen, n-HeaderSize)
	}
	d := decoder{b: b, vsize: vertexSize(f.FloatBits), bits: f.FloatBits}
	f.Entities = make([]Entity, count)
	off := int64(HeaderSize)
	for i := range f.Entities {
		next, err := d.entity(&f.Entities[i], i, off)
		if err != nil {
			return nil, err
		}
		off = next
	}
	return f, nil
}

type decoder struct {
	b     []byte
	bits  int
	vsize int64
}

// entity decodes the entity definition i starting at st into e and returns
// the offset of the next definition.
func (d *decoder) entity(e *Entity, i int, st int64) (int64, error) {
	b := d.b
	rem := int64(len(b)) - st
	if rem < PivotHeaderSize {
		return 0, formatErr(i, st, "entity header needs %d bytes, %d left in the file", PivotHeaderSize, rem)
	}
	size := int64(int32(le32(b, st)))
	if size < PivotHeaderSize {
		return 0, formatErr(i, st, "entity size %d is smaller than the %d-byte header", size, PivotHeaderSize)
	}
	if size > rem {
		return 0, formatErr(i, st, "entity size %d runs past the end of the file (%d bytes left)", size, rem)
	}
	e.Parent = int32(le32(b, st+4))
	if !parentOK(i, e.Parent) {
		return 0, formatErr(i, st+4, "%s", parentProblem(i, e.Parent))
	}
	for k := range 3 {
		e.Position[k] = f32(b, st+8+4*int64(k))
		e.Scale[k] = f32(b, st+20+4*int64(k))
	}
	for k := range 4 {
		e.Rotation[k] = f32(b, st+32+4*int64(k))
	}
	e.AnimLength = int32(le32(b, st+48))

	// Counts, each checked for sign at its own offset.
	count := func(off int64, what string) (int64, error) {
		c := int64(int32(le32(b, off)))
		if c < 0 {
			return 0, formatErr(i, off, "negative %s %d", what, c)
		}
		return c, nil
	}
	kc, err := count(st+52, "keyframe count")
	if err != nil {
		return 0, err
	}
	nameLen, err := count(st+56, "name length")
	if err != nil {
		return 0, err
	}
	vc, err := count(st+60, "vertex count")
	if err != nil {
		return 0, err
	}
	hdr := int64(PivotHeaderSize)
	var vcc, tc, texLen, bc int64
	if vc != 0 {
		hdr = MeshHeaderSize
		if size < MeshHeaderSize {
			return 0, formatErr(i, st, "mesh entity size %d is smaller than the %d-byte mesh header", size, MeshHeaderSize)
		}
		if vcc, err = count(st+64, "vertex colour count"); err != nil {
			return 0, err
		}
		if tc, err = count(st+68, "triangle count"); err != nil {
			return 0, err
		}
		if texLen, err = count(st+72, "texture name length"); err != nil {
			return 0, err
		}
		if bc, err = count(st+88, "bone count"); err != nil {
			return 0, err
		}
	}

	// Lists: each must fit, padding included, before the entity's end.
	// Every list is checked before anything is allocated for it, so
	// allocations are bounded by the input size.
	p, end := st+hdr, st+size
	list := func(what string, n, elem int64) (int64, error) {
		need := align4(n * elem) // n < 2³¹ and elem ≤ 44: no overflow
		if need > end-p {
			return 0, formatErr(i, p, "%s list (%d × %d bytes, padded to %d) runs past the entity end at offset %d", what, n, elem, need, end)
		}
		at := p
		p += need
		return at, nil
	}
	at, err := list("keyframe", kc, KeyframeSize)
	if err != nil {
		return 0, err
	}
	if kc > 0 {
		e.Keyframes = decodeKeyframes(make([]Keyframe, kc), b[at:])
	}
	if at, err = list("name", nameLen, 1); err != nil {
		return 0, err
	}
	e.Name = string(b[at : at+nameLen])
	if vc == 0 {
		return st + align4(size), nil
	}

	m := &Mesh{}
	e.Mesh = m
	if at, err = list("vertex", vc, d.vsize); err != nil {
		return 0, err
	}
	m.Vertices = make([]Vertex, vc)
	if d.bits == 16 {
		decodeVertices16(m.Vertices, b[at:])
	} else {
		decodeVertices32(m.Vertices, b[at:])
	}
	if at, err = list("vertex colour", vcc, ColorSize); err != nil {
		return 0, err
	}
	if vcc > 0 {
		m.Colors = make([]RGB, vcc)
		for k := range m.Colors {
			copy(m.Colors[k][:], b[at+3*int64(k):])
		}
	}
	if at, err = list("triangle", tc, TriangleSize); err != nil {
		return 0, err
	}
	if tc > 0 {
		m.Triangles = make([]Triangle, tc)
		for k := range m.Triangles {
			s := b[at+6*int64(k):]
			m.Triangles[k] = Triangle{le16(s, 0), le16(s, 2), le16(s, 4)}
		}
	}
	if at, err = list("texture name", texLen, 1); err != nil {
		return 0, err
	}
	m.Texture = string(b[at : at+texLen])
	copy(m.Color[:], b[st+76:st+80])
	m.Alpha = f32(b, st+80)
	m.FX = le32(b, st+84)
	if at, err = list("bone", bc, BoneSize); err != nil {
		return 0, err
	}
	if bc > 0 {
		m.Bones = make([]Bone, bc)
		for k := range m.Bones {
			o := at + 12*int64(k)
			m.Bones[k] = Bone{int32(le32(b, o)), int32(le32(b, o+4)), int32(le32(b, o+8))}
		}
	}
	return st + align4(size), nil
}

func decodeKeyframes(dst []Keyframe, b []byte) []Keyframe {
	for i := range dst {
		o := int64(i) * KeyframeSize
		k := &dst[i]
		k.Frame = int32(le32(b, o))
		for j := range 3 {
			k.Position[j] = f32(b, o+4+4*int64(j))
			k.Scale[j] = f32(b, o+16+4*int64(j))
		}
		for j := range 4 {
			k.Rotation[j] = f32(b, o+28+4*int64(j))
		}
	}
	return dst
}

// decodeVertices32 fills dst from 32-byte binary32 vertex elements in b.
func decodeVertices32(dst []Vertex, b []byte) {
	for i := range dst {
		s := b[i*32 : i*32+32 : i*32+32]
		v := &dst[i]
		v.UV[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[0:]))
		v.UV[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[4:]))
		v.Normal[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[8:]))
		v.Normal[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[12:]))
		v.Normal[2] = math.Float32frombits(binary.LittleEndian.Uint32(s[16:]))
		v.Position[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[20:]))
		v.Position[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[24:]))
		v.Position[2] = math.Float32frombits(binary.LittleEndian.Uint32(s[28:]))
	}
}

// decodeVertices16 fills dst from 16-byte binary16 vertex elements in b.
func decodeVertices16(dst []Vertex, b []byte) {
	for i := range dst {
		s := b[i*16 : i*16+16 : i*16+16]
		v := &dst[i]
		v.UV[0] = half.ToFloat32(binary.LittleEndian.Uint16(s[0:]))
		v.UV[1] = half.ToFloat32(binary.LittleEndian.Uint16(s[2:]))
		v.Normal[0] = half.ToFloat32(binary.LittleEndian.Uint16(s[4:]))
		v.Normal[1] = half.ToFloat32(binary.LittleEndian.Uint16(s[6:]))
		v.Normal[2] = half.ToFloat32(binary.LittleEndian.Uint16(s[8:]))
		v.Position[0] = half.ToFloat32(binary.LittleEndian.Uint16(s[10:]))
		v.Position[1] = half.ToFloat32(binary.LittleEndian.Uint16(s[12:]))
		v.Position[2] = half.ToFloat32(binary.LittleEndian.Uint16(s[14:]))
	}
}

func le16(b []byte, off int64) uint16 { return binary.LittleEndian.Uint16(b[off:]) }
func le32(b []byte, off int64) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
func f32(b []byte, off int64) float32 { return math.Float32frombits(le32(b, off)) }
