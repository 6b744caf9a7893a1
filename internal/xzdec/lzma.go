package xzdec

import (
	"encoding/binary"
	"errors"
)

// errCorrupt is any inconsistency in the LZMA2 data.
var errCorrupt = errors.New("corrupt LZMA2 data")

const (
	probBits  = 11
	probInit  = 1 << (probBits - 1)
	moveBits  = 5
	topValue  = 1 << 24
	numStates = 12

	minMatchLen    = 2
	distSlotBits   = 6
	startPosModel  = 4
	endPosModel    = 14
	fullDistances  = 1 << (endPosModel >> 1)
	alignBits      = 4
	lenToPosStates = 4
)

type prob uint16

type lenDecoder struct {
	choice  prob
	choice2 prob
	low     [16][8]prob
	mid     [16][8]prob
	high    [256]prob
}

// model is the adaptive LZMA state. Literal probabilities are sized for
// lc+lp <= 4, the LZMA2 limit.
type model struct {
	state      uint32
	reps       [4]uint32
	lc, lp, pb uint32

	literal    [0x300 << 4]prob
	isMatch    [numStates][16]prob
	isRep      [numStates]prob
	isRepG0    [numStates]prob
	isRepG1    [numStates]prob
	isRepG2    [numStates]prob
	isRep0Long [numStates][16]prob
	distSlot   [lenToPosStates][1 << distSlotBits]prob
	distSpec   [fullDistances - endPosModel + 1]prob
	align      [1 << alignBits]prob
	matchLen   lenDecoder
	repLen     lenDecoder
}

func fill(p []prob) {
	for i := range p {
		p[i] = probInit
	}
}

func (m *model) reset() {
	m.state = 0
	m.reps = [4]uint32{}
	fill(m.literal[:0x300<<(m.lc+m.lp)])
	for i := range numStates {
		fill(m.isMatch[i][:])
		fill(m.isRep0Long[i][:])
	}
	fill(m.isRep[:])
	fill(m.isRepG0[:])
	fill(m.isRepG1[:])
	fill(m.isRepG2[:])
	for i := range m.distSlot {
		fill(m.distSlot[i][:])
	}
	fill(m.distSpec[:])
	fill(m.align[:])
	for _, l := range []*lenDecoder{&m.matchLen, &m.repLen} {
		l.choice, l.choice2 = probInit, probInit
		for i := range l.low {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
}

// rangeDecoder reads one LZMA2 chunk's compressed bytes. Reading past them
// yields zeros and sets over, checked when the chunk ends: the hot loop
// needs no error path.
type rangeDecoder struct {
	in   []byte
	pos  int
	rng  uint32
	code uint32
	over bool
}

func (rc *rangeDecoder) init(in []byte) error {
	if len(in) < 5 || in[0] != 0 {
		return errCorrupt
	}
	rc.in, rc.pos, rc.rng, rc.over = in, 5, 0xFFFFFFFF, false
	rc.code = uint32(in[1])<<24 | uint32(in[2])<<16 | uint32(in[3])<<8 | uint32(in[4])
	return nil
}

func (rc *rangeDecoder) next() byte {
	if rc.pos < len(rc.in) {
		b := rc.in[rc.pos]
		rc.pos++
		return b
	}
	rc.over = true
	return 0
}

func (rc *rangeDecoder) bit(p *prob) uint32 {
	if rc.rng < topValue {
		rc.rng <<= 8
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	pv := uint32(*p)
	bound := (rc.rng >> probBits) * pv
	zero := uint32((int64(rc.code) - int64(bound)) >> 63) // all ones for a 0 bit
	rc.rng = bound&zero | (rc.rng-bound)&^zero
	rc.code -= bound &^ zero
	*p = prob((pv+(1<<probBits-pv)>>moveBits)&zero | (pv-pv>>moveBits)&^zero)
	return ^zero & 1
}

// bitTree decodes n bits, most significant first, through the binary
// tree of probabilities probs. It, bitTreeReverse, direct and the literal
// loops of decodeChunk repeat the bit step with the range coder's state in
// locals: the compiler does not inline bit (cost 113, budget 80), and
// sharing the step through small inlined methods on a local state struct
// measured 13% slower overall (go test -bench Decode), the state then
// being spilled to the stack.
func (rc *rangeDecoder) bitTree(probs []prob, n int) uint32 {
	rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
	m := uint32(1)
	for range n {
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
				ip++
			} else {
				rc.over = true
			}
		}
		p := &probs[m]
		pv := uint32(*p)
		bound := (rng >> probBits) * pv
		zero := uint32((int64(code) - int64(bound)) >> 63) // all ones for a 0 bit
		rng = bound&zero | (rng-bound)&^zero
		code -= bound &^ zero
		*p = prob((pv+(1<<probBits-pv)>>moveBits)&zero | (pv-pv>>moveBits)&^zero)
		m = m<<1 | ^zero&1
	}
	rc.rng, rc.code, rc.pos = rng, code, ip
	return m - 1<<uint(n)
}

// bitTreeReverse decodes n bits, least significant first.
func (rc *rangeDecoder) bitTreeReverse(probs []prob, n int) uint32 {
	rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
	m, v := uint32(1), uint32(0)
	for i := range n {
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
				ip++
			} else {
				rc.over = true
			}
		}
		p := &probs[m]
		pv := uint32(*p)
		bound := (rng >> probBits) * pv
		zero := uint32((int64(code) - int64(bound)) >> 63) // all ones for a 0 bit
		rng = bound&zero | (rng-bound)&^zero
		code -= bound &^ zero
		*p = prob((pv+(1<<probBits-pv)>>moveBits)&zero | (pv-pv>>moveBits)&^zero)
		b := ^zero & 1
		m = m<<1 | b
		v |= b << uint(i)
	}
	rc.rng, rc.code, rc.pos = rng, code, ip
	return v
}

func (rc *rangeDecoder) direct(n int) uint32 {
	rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
	var v uint32
	for range n {
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
				ip++
			} else {
				rc.over = true
			}
		}
		rng >>= 1
		// code >= rng: subtract and take a 1, branch-free.
		t := (code - rng) >> 31 // 1 if code < rng
		code -= rng & (t - 1)
		v = v<<1 | (1 - t)
	}
	rc.rng, rc.code, rc.pos = rng, code, ip
	return v
}

// finished reports whether the chunk's bytes were used exactly.
func (rc *rangeDecoder) finished() bool {
	if rc.rng < topValue {
		rc.rng <<= 8
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	return !rc.over && rc.pos == len(rc.in) && rc.code == 0
}

func (l *lenDecoder) decode(rc *rangeDecoder, posState uint32) uint32 {
	if rc.bit(&l.choice) == 0 {
		return rc.bitTree(l.low[posState][:], 3)
	}
	if rc.bit(&l.choice2) == 0 {
		return 8 + rc.bitTree(l.mid[posState][:], 3)
	}
	return 16 + rc.bitTree(l.high[:], 8)
}

// decodeChunk decodes LZMA symbols into out[pos:end], where out[dictStart:pos]
// is the dictionary so far and dictSize bounds distances. A match may not
// run past end (encoders never split one across chunks; such data is
// reported corrupt so the caller can use a general decoder).
func (m *model) decodeChunk(rc *rangeDecoder, out []byte, pos, end, dictStart, dictSize int) error {
	lc, lpMask, pbMask := m.lc, uint32(1)<<m.lp-1, uint32(1)<<m.pb-1
	state, reps := m.state, m.reps
	for pos < end {
		ps := uint32(pos) & pbMask
		if rc.bit(&m.isMatch[state][ps]) == 0 {
			// Literal.
			var prev uint32
			if pos > dictStart {
				prev = uint32(out[pos-1])
			}
			probs := m.literal[0x300*((uint32(pos)&lpMask)<<lc+prev>>(8-lc)):][:0x300]
			sym := uint32(1)
			if state < 7 {
				// The hottest loop: rc.bit by hand, state in locals.
				rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
				for sym < 0x100 {
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
							ip++
						} else {
							rc.over = true
						}
					}
					// Branch-free: literal bits are hard to predict.
					p := &probs[sym]
					pv := uint32(*p)
					bound := (rng >> probBits) * pv
					zero := uint32((int64(code) - int64(bound)) >> 63) // all ones for a 0 bit
					rng = bound&zero | (rng-bound)&^zero
					code -= bound &^ zero
					*p = prob((pv+(1<<probBits-pv)>>moveBits)&zero | (pv-pv>>moveBits)&^zero)
					sym = sym<<1 | ^zero&1
				}
				rc.rng, rc.code, rc.pos = rng, code, ip
			} else {
				d := int(reps[0]) + 1
				if d > pos-dictStart {
					return errCorrupt
				}
				// A matched literal: the byte at distance reps[0] steers
				// the probabilities while its bits agree with ours.
				mb := uint32(out[pos-d]) << 1
				offset := uint32(0x100)
				rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
				for sym < 0x100 {
					matchBit := mb & offset
					mb <<= 1
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
							ip++
						} else {
							rc.over = true
						}
					}
					p := &probs[offset+matchBit+sym]
					pv := uint32(*p)
					bound := (rng >> probBits) * pv
					zero := uint32((int64(code) - int64(bound)) >> 63) // all ones for a 0 bit
					rng = bound&zero | (rng-bound)&^zero
					code -= bound &^ zero
					*p = prob((pv+(1<<probBits-pv)>>moveBits)&zero | (pv-pv>>moveBits)&^zero)
					sym = sym<<1 | ^zero&1
					// A 0 keeps offset unless the match bit was 1; a 1
					// keeps it only if the match bit was 1.
					offset = (offset&^matchBit)&zero | matchBit&^zero
				}
				rc.rng, rc.code, rc.pos = rng, code, ip
			}
			out[pos] = byte(sym)
			pos++
			switch {
			case state < 4:
				state = 0
			case state < 10:
				state -= 3
			default:
				state -= 6
			}
			continue
		}
		var length uint32
		if rc.bit(&m.isRep[state]) == 0 {
			// A new distance.
			length = m.matchLen.decode(rc, ps)
			lenState := min(length, lenToPosStates-1)
			slot := rc.bitTree(m.distSlot[lenState][:], distSlotBits)
			dist := slot
			if slot >= startPosModel {
				footer := int(slot>>1) - 1
				dist = (2 | slot&1) << uint(footer)
				if slot < endPosModel {
					dist += rc.bitTreeReverse(m.distSpec[dist-slot:], footer)
				} else {
					dist += rc.direct(footer-alignBits) << alignBits
					dist += rc.bitTreeReverse(m.align[:], alignBits)
					if dist == 0xFFFFFFFF {
						return errCorrupt // end marker: not used in LZMA2
					}
				}
			}
			reps = [4]uint32{dist, reps[0], reps[1], reps[2]}
			if state < 7 {
				state = 7
			} else {
				state = 10
			}
		} else {
			if rc.bit(&m.isRepG0[state]) == 0 {
				if rc.bit(&m.isRep0Long[state][ps]) == 0 {
					// Short rep: one byte at distance reps[0].
					d := int(reps[0]) + 1
					if d > pos-dictStart {
						return errCorrupt
					}
					out[pos] = out[pos-d]
					pos++
					if state < 7 {
						state = 9
					} else {
						state = 11
					}
					continue
				}
			} else {
				var d uint32
				if rc.bit(&m.isRepG1[state]) == 0 {
					d = reps[1]
				} else {
					if rc.bit(&m.isRepG2[state]) == 0 {
						d = reps[2]
					} else {
						d = reps[3]
						reps[3] = reps[2]
					}
					reps[2] = reps[1]
				}
				reps[1] = reps[0]
				reps[0] = d
			}
			length = m.repLen.decode(rc, ps)
			if state < 7 {
				state = 8
			} else {
				state = 11
			}
		}
		n := int(length) + minMatchLen
		d := int(reps[0]) + 1
		if d > pos-dictStart || d > dictSize || n > end-pos {
			return errCorrupt
		}
		switch {
		case d >= n && n > 32:
			copy(out[pos:pos+n], out[pos-d:])
		case d >= 8 && pos+n+8 <= end:
			// Eight bytes at a time, even overlapping: each word read
			// lies wholly before the one written. The last word may run
			// past the match into bytes decoded later.
			for i := 0; i < n; i += 8 {
				binary.LittleEndian.PutUint64(out[pos+i:], binary.LittleEndian.Uint64(out[pos-d+i:]))
			}
		default:
			// A run (distance below 8) or the chunk's end: byte by byte.
			src := out[pos-d : pos-d+n]
			dst := out[pos : pos+n]
			for i := range dst {
				dst[i] = src[i]
			}
		}
		pos += n
	}
	m.state, m.reps = state, reps
	return nil
}
