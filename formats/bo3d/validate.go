package bo3d

import "fmt"

// Validate checks the references between the parts of f that Decode and
// Encode leave alone, and returns the first problem as an error matching
// ErrInvalid:
//
//   - the vertex float width, version and parent indices (as Encode does);
//   - triangle indices below the mesh's vertex count;
//   - vertex colours: none, or one per vertex;
//   - bones: an entity index inside the file, and a vertex range inside the
//     mesh unless it is empty (First > Last, which bOGL skips);
//   - keyframes in ascending frame order (bOGL's player relies on it).
func (f *File) Validate() error {
	if err := f.checkHeader(); err != nil {
		return err
	}
	for i := range f.Entities {
		if err := f.validateEntity(i); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) validateEntity(i int) error {
	e := &f.Entities[i]
	if !parentOK(i, e.Parent) {
		return invalidf("entity %d: %s", i, parentProblem(i, e.Parent))
	}
	for k := 1; k < len(e.Keyframes); k++ {
		if e.Keyframes[k].Frame < e.Keyframes[k-1].Frame {
			return invalidf("entity %d: keyframe %d has frame %d, below the previous frame %d", i, k, e.Keyframes[k].Frame, e.Keyframes[k-1].Frame)
		}
	}
	m := e.Mesh
	if m == nil {
		return nil
	}
	vc := len(m.Vertices)
	if vc == 0 {
		return invalidf("entity %d: a mesh needs at least one vertex", i)
	}
	if len(m.Colors) != 0 && len(m.Colors) != vc {
		return invalidf("entity %d: %d vertex colours for %d vertices", i, len(m.Colors), vc)
	}
	for k, t := range m.Triangles {
		for _, v := range t {
			if int(v) >= vc {
				return invalidf("entity %d: triangle %d uses vertex %d of %d", i, k, v, vc)
			}
		}
	}
	for k, bn := range m.Bones {
		if bn.Entity < 0 || int(bn.Entity) >= len(f.Entities) {
			return invalidf("entity %d: bone %d names entity %d of %d", i, k, bn.Entity, len(f.Entities))
		}
		if bn.First <= bn.Last && (bn.First < 0 || int(bn.Last) >= vc) {
			return invalidf("entity %d: bone %d covers vertices %d..%d of %d", i, k, bn.First, bn.Last, vc)
		}
	}
	return nil
}

// checkHeader checks the file-level fields Encode and Validate need.
func (f *File) checkHeader() error {
	if f.FloatBits != 16 && f.FloatBits != 32 {
		return invalidf("vertex float width %d (want 16 or 32)", f.FloatBits)
	}
	if f.Version > Version {
		return invalidf("version %d is newer than %d", f.Version, Version)
	}
	if len(f.Entities) == 0 {
		return invalidf("no entities")
	}
	return nil
}

// parentOK reports whether entity i may have parent p: -1 (none) or an
// earlier entity, so the hierarchy is acyclic and parents come first.
func parentOK(i int, p int32) bool {
	return p == -1 || p >= 0 && int(p) < i
}

// parentProblem describes a parent index that is not parentOK.
func parentProblem(i int, p int32) string {
	if i == 0 {
		return fmt.Sprintf("parent index %d out of range (want -1 for the root)", p)
	}
	return fmt.Sprintf("parent index %d out of range (want -1 or 0..%d)", p, i-1)
}
