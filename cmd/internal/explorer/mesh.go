package explorer

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/types/model"
)

// mesh is a model or BO3D mesh as /api/mesh sends it: every vertex array
// (or BO3D mesh entity) one after the other, with indices of triangles
// into the whole.
type mesh struct {
	positions []float32 // 3 per vertex
	normals   []float32 // 3 per vertex, or nil
	indices   []uint32  // a multiple of 3
	bones     int
	format    string // the vertex format, described
}

// vertices is the number of vertices.
func (m *mesh) vertices() int { return len(m.positions) / 3 }

// wireSize is the size of the /api/mesh answer.
func (m *mesh) wireSize() int64 {
	return 8 + 24*int64(m.vertices()) + 4*int64(len(m.indices))
}

// meshFields are the /api/preview fields of a model or BO3D mesh.
func (s *Server) meshFields(r *http.Request, sub *subject) (map[string]any, error) {
	m, g, err := s.loadMesh(r, sub)
	if err != nil {
		return nil, err
	}
	g.release()
	return map[string]any{
		"vertices": m.vertices(), "triangles": len(m.indices) / 3, "bones": m.bones,
		"vertexFormat": m.format, "mesh": "/api/mesh?" + sub.query,
	}, nil
}

// handleMesh answers /api/mesh: the mesh in the binary layout of the
// package doc.
func (s *Server) handleMesh(w http.ResponseWriter, r *http.Request) {
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	m, g, err := s.loadMesh(r, sub)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	b := m.appendTo(make([]byte, 0, m.wireSize()))
	send(w, g, "application/octet-stream", b)
}

// appendTo appends m in the /api/mesh layout to b.
func (m *mesh) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(m.vertices()))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.indices)))
	for _, v := range m.positions {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	for i := range m.positions {
		var v float32
		if m.normals != nil {
			v = m.normals[i]
		}
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	for _, v := range m.indices {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// What a mesh preview takes at most per byte of its input, the mesh and
// its answer included (TestPreviewCostFactors measures them): a model per
// byte of its sections, a BO3D file per byte of the file (decoded, 3
// bytes per byte).
const (
	modelFactor = 8
	bo3dFactor  = 8
)

// loadMesh decodes the mesh of sub, a BPX model or a BO3D file, under a
// grant of the preview budget for the mesh and its answer, which the
// caller releases.
func (s *Server) loadMesh(r *http.Request, sub *subject) (*mesh, *grant, error) {
	var decode func() (*mesh, error)
	var cost int64
	switch {
	case sub.rd != nil && sub.rd.Header.Type == bpx.TypeModel:
		total := modelSectionsSize(sub.rd)
		if err := checkPreviewSize(sub.name+": model sections", modelFactor*total); err != nil {
			return nil, nil, err
		}
		decode, cost = func() (*mesh, error) { return modelMesh(sub) }, modelFactor*total
	case sub.rd != nil:
		return nil, nil, badRequestf("%s: not a model (type %q)", sub.name, sub.rd.Header.Type)
	default:
		if sub.size > maxBO3D {
			return nil, nil, fmt.Errorf("%s: %d bytes, above the preview limit of %d for this kind: %w", sub.name, sub.size, int64(maxBO3D), bpx.ErrTooLarge)
		}
		decode, cost = func() (*mesh, error) { return bo3dMesh(sub) }, bo3dFactor*sub.size
	}
	g, err := s.acquire(r, sub.name, cost)
	if err != nil {
		return nil, nil, err
	}
	m, err := decode()
	if err == nil && m.wireSize() > g.n {
		err = fmt.Errorf("%s: mesh of %d bytes, above its share of the preview limit (%d): %w", sub.name, m.wireSize(), g.n, bpx.ErrTooLarge)
	}
	if err != nil {
		g.release()
		return nil, nil, err
	}
	return m, g, nil
}

// modelSectionsSize is the decompressed size of the sections model.Read
// reads.
func modelSectionsSize(rd *bpx.Reader) int64 {
	var total int64
	for _, sec := range rd.Sections {
		switch sec.Type {
		case model.SectionVertexArray, model.SectionIndexArray, model.SectionBoneArray,
			model.SectionFrameArray, model.SectionAnimationArray, model.SectionStrings:
			total += int64(sec.USize)
		}
	}
	return total
}

// Vertex formats whose layout the explorer knows, by their §7 hash.
var knownVertexFormats = map[uint64]struct {
	size int
	desc string
}{
	bo3d.VertexFormatPNUHash:  {model.PNUSize, "position float32x3, normal float32x3, uv float32x2"},
	bo3d.VertexFormatPNUCHash: {bo3d.VertexSizePNUC, "position float32x3, normal float32x3, uv float32x2, color uint8x4"},
}

// modelMesh decodes the BPX model of sub. The vertex format is an outside
// asset: for the formats the explorer knows the layout is theirs; for any
// other, the vertex size is what the vertex arrays' sizes and counts give,
// and the position is taken to be the float32x3 at the start of a vertex
// (as in every known format), with no normals.
func modelMesh(sub *subject) (*mesh, error) {
	ext, err := model.ParseTypeExt(sub.rd.Header.TypeExt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	m := &mesh{}
	size, normals := 0, false
	if f, ok := knownVertexFormats[ext.VertexFormatHash]; ok {
		size, normals, m.format = f.size, true, f.desc
	} else {
		if size, err = inferVertexSize(sub); err != nil {
			return nil, err
		}
		if size < 12 {
			return nil, fmt.Errorf("%s: vertex format %#016x of %d-byte vertices has no room for a float32x3 position: %w",
				sub.name, ext.VertexFormatHash, size, bpx.ErrUnsupported)
		}
		m.format = fmt.Sprintf("unknown format %#016x: %d-byte vertices, position float32x3 at offset 0 assumed", ext.VertexFormatHash, size)
	}
	md, err := model.Read(sub.rd, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	m.bones = len(md.Bones)
	n := 0
	for _, va := range md.VertexArrays {
		n += va.VertexCount()
	}
	m.positions = make([]float32, 0, 3*n)
	if normals {
		m.normals = make([]float32, 0, 3*n)
	}
	for i, va := range md.VertexArrays {
		base := len(m.positions) / 3
		pos, err := va.Attribute(model.PNUPosition, 3)
		if err != nil {
			return nil, fmt.Errorf("%s: vertex array %d: %w", sub.name, i, err)
		}
		m.positions = pos.Append(m.positions)
		if normals {
			nor, err := va.Attribute(model.PNUNormal, 3)
			if err != nil {
				return nil, fmt.Errorf("%s: vertex array %d: %w", sub.name, i, err)
			}
			m.normals = nor.Append(m.normals)
		}
		count := va.VertexCount()
		if va.Indices == nil {
			for v := range count - count%3 {
				m.indices = append(m.indices, uint32(base+v))
			}
			continue
		}
		idx := va.Indices.Indices
		for j, v := range idx[:len(idx)-len(idx)%3] {
			if int64(v) >= int64(count) {
				return nil, fmt.Errorf("%s: vertex array %d: index %d is %d, past its %d vertices: %w", sub.name, i, j, v, count, bpx.ErrFormat)
			}
			m.indices = append(m.indices, uint32(base)+v)
		}
	}
	return m, nil
}

// inferVertexSize returns the vertex size the VertexArray sections of sub
// imply: the bytes after the header of the first non-empty one divided by
// its vertex count (12 when every array is empty). It reads only the
// section headers.
func inferVertexSize(sub *subject) (int, error) {
	for _, sec := range sub.rd.SectionsOfType(model.SectionVertexArray) {
		if sec.USize < model.VertexArrayHeaderSize {
			continue // model.Read names the error
		}
		rc, err := sec.Open()
		if err != nil {
			return 0, fmt.Errorf("%s: section %d: %w", sub.name, sec.Index, err)
		}
		var h [model.VertexArrayHeaderSize]byte
		_, err = io.ReadFull(rc, h[:])
		rc.Close()
		if err != nil {
			return 0, fmt.Errorf("%s: section %d: %w", sub.name, sec.Index, err)
		}
		count := int64(binary.LittleEndian.Uint32(h[8:]))
		body := int64(sec.USize) - model.VertexArrayHeaderSize
		if count == 0 {
			continue
		}
		if body%count != 0 || body/count > math.MaxInt32 {
			return 0, fmt.Errorf("%s: section %d: %d bytes of vertices are not %d whole vertices: %w",
				sub.name, sec.Index, body, count, bpx.ErrFormat)
		}
		return int(body / count), nil
	}
	return 12, nil
}

// maxBO3D is the largest BO3D file previewed: decoded (3 bytes per input
// byte), turned into a mesh and its answer, it takes at most
// MaxPreviewBytes.
const maxBO3D = MaxPreviewBytes / bo3dFactor

// bo3dMesh decodes the BO3D file of sub: every mesh entity, in file
// order, placed in the scene by its entity's transform (the normals
// turned with it).
func bo3dMesh(sub *subject) (*mesh, error) {
	data, err := sub.readAll(maxBO3D)
	if err != nil {
		return nil, err
	}
	f, err := bo3d.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	m := &mesh{}
	colors, n := false, 0
	for _, e := range f.Entities {
		if e.Mesh != nil {
			n += len(e.Mesh.Vertices)
			colors = colors || len(e.Mesh.Colors) > 0
		}
	}
	m.positions = make([]float32, 0, 3*n)
	m.normals = make([]float32, 0, 3*n)
	scene := f.SceneTransforms()
	for ei, e := range f.Entities {
		if e.Mesh == nil {
			continue
		}
		base := uint32(len(m.positions) / 3)
		count := len(e.Mesh.Vertices)
		tr := scene[ei]
		nm := normalMatrix(tr)
		for _, v := range e.Mesh.Vertices {
			p, n := transformPoint(tr, v.Position), transformNormal(nm, v.Normal)
			m.positions = append(m.positions, p[0], p[1], p[2])
			m.normals = append(m.normals, n[0], n[1], n[2])
		}
		for ti, t := range e.Mesh.Triangles {
			for _, v := range t {
				if int(v) >= count {
					return nil, fmt.Errorf("%s: entity %d: triangle %d uses vertex %d, past its %d vertices: %w", sub.name, ei, ti, v, count, bo3d.ErrFormat)
				}
				m.indices = append(m.indices, base+uint32(v))
			}
		}
		m.bones += len(e.Mesh.Bones)
	}
	float := fmt.Sprintf("float%d", f.FloatBits)
	parts := []string{"uv " + float + "x2", "normal " + float + "x3", "position " + float + "x3"}
	if colors {
		parts = append(parts, "color uint8x3")
	}
	m.format = strings.Join(parts, ", ")
	return m, nil
}

// transformPoint returns p moved by the 3×4 transform tr.
func transformPoint(tr [3][4]float64, p [3]float32) [3]float32 {
	x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
	var out [3]float32
	for r := range 3 {
		out[r] = float32(tr[r][0]*x + tr[r][1]*y + tr[r][2]*z + tr[r][3])
	}
	return out
}

// normalMatrix returns the matrix that turns normals along with the
// linear part M of tr: M's cofactor matrix, det(M)·M⁻ᵀ, which stays
// defined when M is singular, negated when det(M) < 0 so that normals
// keep their side.
func normalMatrix(tr [3][4]float64) [3][3]float64 {
	row := func(i int) [3]float64 { return [3]float64{tr[i][0], tr[i][1], tr[i][2]} }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	r0, r1, r2 := row(0), row(1), row(2)
	c := [3][3]float64{cross(r1, r2), cross(r2, r0), cross(r0, r1)}
	if r0[0]*c[0][0]+r0[1]*c[0][1]+r0[2]*c[0][2] < 0 { // det(M) = r0 · (r1 × r2)
		for i := range c {
			for j := range c[i] {
				c[i][j] = -c[i][j]
			}
		}
	}
	return c
}

// transformNormal returns n turned by the normal matrix nm, of unit
// length; a zero result (or a zero n) stays zero, for the page to compute.
func transformNormal(nm [3][3]float64, n [3]float32) [3]float32 {
	var v [3]float64
	for r := range 3 {
		v[r] = nm[r][0]*float64(n[0]) + nm[r][1]*float64(n[1]) + nm[r][2]*float64(n[2])
	}
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return [3]float32{}
	}
	return [3]float32{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}
}
