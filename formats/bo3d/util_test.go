package bo3d

import (
	"encoding/binary"
	"math"
)

// wb builds expected bytes by hand, independently of the encoder.
type wb struct{ b []byte }

func (w *wb) u32(vs ...uint32) *wb {
	for _, v := range vs {
		w.b = binary.LittleEndian.AppendUint32(w.b, v)
	}
	return w
}
func (w *wb) i32(vs ...int32) *wb {
	for _, v := range vs {
		w.u32(uint32(v))
	}
	return w
}
func (w *wb) f32(vs ...float32) *wb {
	for _, v := range vs {
		w.u32(math.Float32bits(v))
	}
	return w
}
func (w *wb) u16(vs ...uint16) *wb {
	for _, v := range vs {
		w.b = binary.LittleEndian.AppendUint16(w.b, v)
	}
	return w
}
func (w *wb) raw(s ...byte) *wb { w.b = append(w.b, s...); return w }
func (w *wb) str(s string) *wb  { w.b = append(w.b, s...); return w }

// put32 overwrites the little-endian int at off in a copy of b.
func put32(b []byte, off int, v int32) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[off:], uint32(v))
	return c
}
