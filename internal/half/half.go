// Package half converts between IEEE 754 binary16 ("half precision") bit
// patterns and float32.
//
// ToFloat32 is exact for every input: binary16 subnormals become the float32
// normals they denote, infinities stay infinite and NaNs stay NaN with their
// sign and payload bits shifted into the float32 payload. FromFloat32 rounds
// to nearest, ties to even, as IEEE 754 requires, so
// FromFloat32(ToFloat32(h)) == h for every h. FromFloat32Sat does the same but
// clamps finite values that are too large to ±65504 instead of turning them
// into infinities.
package half

import "math"

// Bit patterns of notable binary16 values.
const (
	PosInf  uint16 = 0x7c00 // +Inf
	NegInf  uint16 = 0xfc00 // -Inf
	MaxHalf uint16 = 0x7bff // largest finite value, 65504
	QNaN    uint16 = 0x7e00 // the canonical quiet NaN
)

// ToFloat32 returns the float32 value of the binary16 bit pattern h. The
// conversion is exact.
func ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch exp {
	case 0:
		// Zero or subnormal: frac × 2⁻²⁴, exact in float32.
		f := float32(frac) * (1.0 / (1 << 24))
		return math.Float32frombits(math.Float32bits(f) | sign)
	case 0x1f:
		// Infinity or NaN; a NaN keeps its payload (and stays a NaN, since
		// frac != 0 implies frac<<13 != 0).
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// FromFloat32 returns the binary16 bit pattern nearest to f, ties to even.
// Finite values of magnitude 65520 or more become infinities; NaNs stay NaNs
// (keeping the top 10 payload bits, or becoming quiet when those are zero).
func FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff {
		if frac == 0 {
			return sign | PosInf
		}
		p := uint16(frac >> 13)
		if p == 0 {
			p = 0x200 // the payload does not survive: keep it a NaN
		}
		return sign | PosInf | p
	}
	e := exp - 127 + 15 // binary16 biased exponent
	if e >= 0x1f {
		return sign | PosInf
	}
	if e <= 0 {
		// binary16 subnormal (or zero): value = m × 2^(exp-150), and the
		// subnormal step is 2⁻²⁴, so the result is m >> (14 - e).
		if e < -10 {
			return sign // below half of the smallest subnormal: rounds to zero
		}
		m := frac | 0x800000
		return sign | uint16(roundShift(m, uint32(14-e)))
	}
	// Normal. A carry out of the fraction correctly bumps the exponent, up
	// to infinity.
	return sign | uint16(roundShift(uint32(e)<<23|frac, 13))
}

// FromFloat32Sat is FromFloat32, except that finite values too large for
// binary16 saturate to ±65504 instead of becoming infinities. Infinities and
// NaNs are kept.
func FromFloat32Sat(f float32) uint16 {
	h := FromFloat32(f)
	if h&0x7fff == PosInf && !math.IsInf(float64(f), 0) {
		return h&0x8000 | MaxHalf
	}
	return h
}

// roundShift returns x >> s rounded to nearest, ties to even (1 ≤ s ≤ 31).
func roundShift(x, s uint32) uint32 {
	r := x >> s
	rem := x & (1<<s - 1)
	mid := uint32(1) << (s - 1)
	if rem > mid || rem == mid && r&1 == 1 {
		r++
	}
	return r
}
