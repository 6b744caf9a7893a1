package bpx

import (
	"encoding/binary"
	"sync"
)

// The reference SDK's CRC32 variant, fast.
//
// Its byte step is c' = g(c ^ b) with the linear map
// g(d) = d>>8 ^ T[d&0xFF], T[x] = x>>1 ^ (x&1)·0xEDB88320. Because g is
// linear over GF(2), the usual slicing-by-8 tables apply, and a long input
// can be split into three lanes whose CRCs are computed in one interleaved
// loop (three independent dependency chains) and then combined:
// R(r, A‖B‖C) = g^(|B|+|C|)(R(r, A)) ^ g^|C|(R(0, B)) ^ R(0, C).

// refTables holds the tables, computed on first use rather than at
// program start (0.3 ms that every "bpx" run would pay).
type refTables struct {
	crc            [8][256]uint32 // slicing-by-8; crc[0] is T
	shift1, shift2 [4][256]uint32 // g^refLane and g^(2·refLane)
}

var loadRefTables = sync.OnceValue(func() *refTables {
	t := &refTables{crc: makeRefCRCTables()}
	t.shift1, t.shift2 = makeRefShifts(&t.crc[0])
	return t
})

// makeRefCRCTables returns the slicing-by-8 tables.
func makeRefCRCTables() (t [8][256]uint32) {
	for i := range t[0] {
		v := uint32(i) >> 1
		if i&1 != 0 {
			v ^= 0xEDB88320
		}
		t[0][i] = v
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			v := t[k-1][i]
			t[k][i] = v>>8 ^ t[0][v&0xFF]
		}
	}
	return t
}

// refLane is the length of each of the three interleaved lanes.
const refLane = 4096

// gf2Op is a linear map on 32-bit values over GF(2), given by the images of
// the 32 unit vectors.
type gf2Op [32]uint32

func (m *gf2Op) apply(v uint32) uint32 {
	var r uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			r ^= m[i]
		}
	}
	return r
}

func (m *gf2Op) compose(n *gf2Op) (out gf2Op) { // m∘n
	for i := range out {
		out[i] = m.apply(n[i])
	}
	return out
}

// byteTables turns m into four 256-entry tables, one per input byte.
func (m *gf2Op) byteTables() (t [4][256]uint32) {
	for j := range t {
		for x := range t[j] {
			t[j][x] = m.apply(uint32(x) << (8 * j))
		}
	}
	return t
}

// makeRefShifts returns tables applying g^refLane and g^(2·refLane).
func makeRefShifts(t0 *[256]uint32) (a, b [4][256]uint32) {
	var g gf2Op
	for i := range g {
		d := uint32(1) << i
		g[i] = d>>8 ^ t0[d&0xFF]
	}
	p := g // g^1; square up to g^refLane
	for n := 1; n < refLane; n *= 2 {
		p = p.compose(&p)
	}
	p2 := p.compose(&p)
	return p.byteTables(), p2.byteTables()
}

func shiftBy(t *[4][256]uint32, v uint32) uint32 {
	return t[0][v&0xFF] ^ t[1][v>>8&0xFF] ^ t[2][v>>16&0xFF] ^ t[3][v>>24]
}

// UpdateReferenceCRC32 continues the reference SDK's CRC32 variant (see
// ReferenceCRC32) over p. crc is the value returned for the data so far
// (0 for none), so calls can be chained.
func UpdateReferenceCRC32(crc uint32, p []byte) uint32 {
	r := ^crc
	tabs := loadRefTables()
	t := &tabs.crc
	for len(p) >= 3*refLane {
		a, b, c := p[:refLane], p[refLane:2*refLane], p[2*refLane:3*refLane]
		var rb, rc uint32
		for i := 0; i < refLane; i += 8 {
			r ^= binary.LittleEndian.Uint32(a[i:])
			rb ^= binary.LittleEndian.Uint32(b[i:])
			rc ^= binary.LittleEndian.Uint32(c[i:])
			r = t[7][r&0xFF] ^ t[6][r>>8&0xFF] ^ t[5][r>>16&0xFF] ^ t[4][r>>24] ^
				t[3][a[i+4]] ^ t[2][a[i+5]] ^ t[1][a[i+6]] ^ t[0][a[i+7]]
			rb = t[7][rb&0xFF] ^ t[6][rb>>8&0xFF] ^ t[5][rb>>16&0xFF] ^ t[4][rb>>24] ^
				t[3][b[i+4]] ^ t[2][b[i+5]] ^ t[1][b[i+6]] ^ t[0][b[i+7]]
			rc = t[7][rc&0xFF] ^ t[6][rc>>8&0xFF] ^ t[5][rc>>16&0xFF] ^ t[4][rc>>24] ^
				t[3][c[i+4]] ^ t[2][c[i+5]] ^ t[1][c[i+6]] ^ t[0][c[i+7]]
		}
		r = shiftBy(&tabs.shift2, r) ^ shiftBy(&tabs.shift1, rb) ^ rc
		p = p[3*refLane:]
	}
	for len(p) >= 8 {
		r ^= binary.LittleEndian.Uint32(p)
		r = t[7][r&0xFF] ^ t[6][r>>8&0xFF] ^ t[5][r>>16&0xFF] ^ t[4][r>>24] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		r = r>>8 ^ t[0][byte(r)^b]
	}
	return ^r
}
