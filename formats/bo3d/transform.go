package bo3d

import "math"

// affine is a 3×4 matrix in float64: a 3×3 linear part and a translation.
type affine struct {
	m [3][3]float64
	t [3]float64
}

var identityAffine = affine{m: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}

// localAffine returns translate(pos) · rotate(q) · scale(s) for a
// quaternion q in the order w, x, y, z (normalised first; a zero or
// non-finite length gives no rotation).
func localAffine(pos, s [3]float32, q [4]float32) affine {
	w, x, y, z := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	n := math.Sqrt(w*w + x*x + y*y + z*z)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		w, x, y, z, n = 1, 0, 0, 0, 1
	}
	w, x, y, z = w/n, x/n, y/n, z/n
	r := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	var a affine
	for i := range 3 {
		for j := range 3 {
			a.m[i][j] = r[i][j] * float64(s[j])
		}
		a.t[i] = float64(pos[i])
	}
	return a
}

// mul returns a · b (b applied first).
func (a affine) mul(b affine) affine {
	var c affine
	for i := range 3 {
		for j := range 3 {
			c.m[i][j] = a.m[i][0]*b.m[0][j] + a.m[i][1]*b.m[1][j] + a.m[i][2]*b.m[2][j]
		}
		c.t[i] = a.m[i][0]*b.t[0] + a.m[i][1]*b.t[1] + a.m[i][2]*b.t[2] + a.t[i]
	}
	return c
}

// apply transforms the point p.
func (a affine) apply(p [3]float64) [3]float32 {
	var out [3]float32
	for i := range 3 {
		out[i] = float32(a.m[i][0]*p[0] + a.m[i][1]*p[1] + a.m[i][2]*p[2] + a.t[i])
	}
	return out
}

// globalTransforms returns the scene-space transform of every entity of f,
// whose parents (as Validate guarantees) precede their children.
func globalTransforms(f *File) []affine {
	g := make([]affine, len(f.Entities))
	for i := range f.Entities {
		e := &f.Entities[i]
		l := localAffine(e.Position, e.Scale, e.Rotation)
		if e.Parent >= 0 {
			g[i] = g[e.Parent].mul(l)
		} else {
			g[i] = identityAffine.mul(l)
		}
	}
	return g
}

// SceneTransforms returns, for every entity of f, the transform from its
// local coordinates (those of its mesh's vertices) to the scene's: the
// product of its ancestors' and its own translate · rotate · scale, as a
// 3×4 row-major matrix whose last column is the translation. A parent
// index that does not name an earlier entity (Decode refuses those) counts
// as entity 0, as bOGL's loader reparents it; the first entity is the root.
func (f *File) SceneTransforms() [][3][4]float64 {
	g := make([]affine, len(f.Entities))
	out := make([][3][4]float64, len(f.Entities))
	for i := range f.Entities {
		e := &f.Entities[i]
		l := localAffine(e.Position, e.Scale, e.Rotation)
		switch p := int(e.Parent); {
		case i == 0:
			g[i] = l
		case p >= 0 && p < i:
			g[i] = g[p].mul(l)
		default:
			g[i] = g[0].mul(l)
		}
		for r := range 3 {
			out[i][r] = [4]float64{g[i].m[r][0], g[i].m[r][1], g[i].m[r][2], g[i].t[r]}
		}
	}
	return out
}
