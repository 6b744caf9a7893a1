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
	maxMatchLen    = minMatchLen + 271
	distSlotBits   = 6
	startPosModel  = 4
	endPosModel    = 14
	fullDistances  = 1 << (endPosModel >> 1)
	alignBits      = 4
	lenToPosStates = 4
)

type prob uint16

// afterLiteral is the state after a literal: a load, not compares.
var afterLiteral = [numStates]uint8{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}

// adaptZero adapts a probability p after a 0 bit in the same formula as
// after a 1: p - (p-k)>>moveBits, shifted arithmetically, is
// p + (1<<probBits-p)>>moveBits with k = adaptZero and p - p>>moveBits
// with k = 0.
const adaptZero = 1<<probBits - 1<<moveBits + 1

// Bit trees are stored with as many spare entries as they have nodes:
// decodeChunk loads both children of a node before its bit is known
// (see treeBit), and the children of the last level fall there.

type lenDecoder struct {
	choice  prob
	choice2 prob
	low     [16][16]prob
	mid     [16][16]prob
	high    [512]prob
}

// model is the adaptive LZMA state. Literal probabilities are sized for
// lc+lp <= 4, the LZMA2 limit.
type model struct {
	state      uint32
	reps       [4]uint32
	lc, lp, pb uint32

	literal    [0x300<<4 + 0x100]prob // 0x100 spare: see treeBit
	isMatch    [numStates][16]prob
	isRep      [numStates]prob
	isRepG0    [numStates]prob
	isRepG1    [numStates]prob
	isRepG2    [numStates]prob
	isRep0Long [numStates][16]prob
	distSlot   [lenToPosStates][2 << distSlotBits]prob
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
// yields zeros while pos keeps counting, so the check at the chunk's end
// (pos == len(in)) catches it: the hot loop needs no error path.
// decodeChunk keeps this state in locals.
type rangeDecoder struct {
	in   []byte
	pos  int
	rng  uint32
	code uint32
}

func (rc *rangeDecoder) init(in []byte) error {
	if len(in) < 5 || in[0] != 0 {
		return errCorrupt
	}
	rc.in, rc.pos, rc.rng = in, 5, 0xFFFFFFFF
	rc.code = uint32(in[1])<<24 | uint32(in[2])<<16 | uint32(in[3])<<8 | uint32(in[4])
	return nil
}

// finished reports whether the chunk's bytes were used exactly.
func (rc *rangeDecoder) finished() bool {
	_, code, ip := norm(rc.rng, rc.code, rc.pos, rc.in)
	return ip == len(rc.in) && code == 0
}

// norm refills the range coder: past the end of in it shifts in zeros
// and ip keeps counting, which the chunk's end check detects.
func norm(rng, code uint32, ip int, in []byte) (uint32, uint32, int) {
	if rng < topValue {
		rng <<= 8
		code <<= 8
		if uint(ip) < uint(len(in)) {
			code |= uint32(in[ip])
		}
		ip++
	}
	return rng, code, ip
}

// treeBit decodes one bit of a bit tree at a node whose probability pv
// (*p) is already loaded, adapts it, and returns the bit and the
// probability of the next node: c0 or c1, the two children's, loaded
// before the bit was known. The next bit then waits for a select, not for
// a load whose address depends on this bit, which shortens the chain of
// dependent instructions each bit of a tree costs by about a third.
//
// Each result is chosen by an if of its own, which the compiler turns
// into a conditional move (an if choosing several goes through a
// branch, mispredicted on every other literal bit): the next bit waits
// for a compare and a move, not for a mask built from the compare, which
// measured 1.03x to 1.05x faster (bench/lzma-vs-xz.sh's inputs). It
// stays within the inliner's budget: the 0-or-1 bit, not a mask, picks
// the adaptation.
func treeBit(rng, code, pv uint32, p *prob, c0, c1 uint32) (uint32, uint32, uint32, uint32) {
	bound := (rng >> probBits) * pv
	r, c, b := rng-bound, code-bound, uint32(1)
	if code < bound {
		r = bound
	}
	if code < bound {
		c = code
	}
	if code < bound {
		b = 0
	}
	if code < bound {
		c1 = c0
	}
	*p = prob(pv - uint32(int32(pv-(b-1)&adaptZero)>>moveBits))
	return r, c, b, c1
}

// step decodes one bit with probability *p and adapts it, choosing its
// results as treeBit does.
func step(rng, code uint32, p *prob) (uint32, uint32, uint32) {
	pv := uint32(*p)
	bound := (rng >> probBits) * pv
	r, c, b := rng-bound, code-bound, uint32(1)
	if code < bound {
		r = bound
	}
	if code < bound {
		c = code
	}
	if code < bound {
		b = 0
	}
	*p = prob(pv - uint32(int32(pv-(b-1)&adaptZero)>>moveBits))
	return r, c, b
}

// decodeChunk decodes LZMA symbols into out from pos until it reaches
// stop or the chunk's end len(out), and returns the position reached,
// saving its state in m and rc so that a later call continues. The last
// symbol may run up to a match's length (273) past stop, never past
// len(out): out[dictStart:pos] is the dictionary so far and dictSize
// bounds distances. A match may not run past len(out) (encoders never
// split one across chunks; such data is reported corrupt so the caller
// can use a general decoder). A distance
// (up to 4 GiB - 1) is compared with pos-dictStart as a uint before it
// becomes an index: as an int it wraps negative where int has 32 bits.
// reps[0] is always below dictSize, which a matched literal and a short
// rep, that use it without that check, rely on: it is 0 after a reset,
// and every match checks it (and a new block resets the state).
//
// The range coder's state lives in locals (rng, code, ip) for the whole
// chunk, and every bit is decoded by the inlined norm and step (treeBit in
// bit trees): a call per bit tree, as a method on rc, spilled and reloaded
// that state and all of this loop's variables (Go's ABI has no
// callee-saved registers) and measured slower; treeBit's early loads are
// faster again (both by BenchmarkDecode). Reverse bit trees are short and
// did not gain from treeBit.
func (m *model) decodeChunk(rc *rangeDecoder, out []byte, pos, stop, dictStart int, dictSize uint32) (int, error) {
	lc, lpMask, pbMask := m.lc, uint32(1)<<m.lp-1, uint32(1)<<m.pb-1
	state, reps := m.state, m.reps
	rng, code, ip, in := rc.rng, rc.code, rc.pos, rc.in
	var bit uint32
	for pos < stop {
		ps := uint32(pos) & pbMask
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, bit = step(rng, code, &m.isMatch[state][ps])
		if bit == 0 {
			// Literal.
			var prev uint32
			if pos > dictStart {
				prev = uint32(out[pos-1])
			}
			probs := (*[0x400]prob)(m.literal[0x300*((uint32(pos)&lpMask)<<lc+prev>>(8-lc)):][:0x400])
			var sym uint32
			if state < 7 {
				rng, code, ip, sym = literal(rng, code, ip, in, probs)
			} else {
				if uint(reps[0]) >= uint(pos-dictStart) {
					return pos, errCorrupt
				}
				rng, code, ip, sym = matchedLiteral(rng, code, ip, in, probs, uint32(out[pos-int(reps[0])-1]))
			}
			out[pos] = byte(sym)
			pos++
			state = uint32(afterLiteral[state%numStates])
			continue
		}
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, bit = step(rng, code, &m.isRep[state])
		lens := &m.matchLen
		if bit == 1 {
			lens = &m.repLen
			rng, code, ip = norm(rng, code, ip, in)
			rng, code, bit = step(rng, code, &m.isRepG0[state])
			if bit == 0 {
				rng, code, ip = norm(rng, code, ip, in)
				rng, code, bit = step(rng, code, &m.isRep0Long[state][ps])
				if bit == 0 {
					// Short rep: one byte at distance reps[0].
					if uint(reps[0]) >= uint(pos-dictStart) {
						return pos, errCorrupt
					}
					out[pos] = out[pos-int(reps[0])-1]
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
				rng, code, ip = norm(rng, code, ip, in)
				rng, code, bit = step(rng, code, &m.isRepG1[state])
				if bit == 0 {
					d = reps[1]
				} else {
					rng, code, ip = norm(rng, code, ip, in)
					rng, code, bit = step(rng, code, &m.isRepG2[state])
					if bit == 0 {
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
		}
		var length uint32
		rng, code, ip, length = decodeLen(rng, code, ip, in, lens, ps)
		if lens == &m.matchLen {
			var dist uint32
			rng, code, ip, dist = m.decodeDist(rng, code, ip, in, length)
			if dist == 0xFFFFFFFF {
				return pos, errCorrupt // end marker: not used in LZMA2
			}
			reps = [4]uint32{dist, reps[0], reps[1], reps[2]}
			if state < 7 {
				state = 7
			} else {
				state = 10
			}
		} else if state < 7 {
			state = 8
		} else {
			state = 11
		}
		n := int(length) + minMatchLen
		if uint(reps[0]) >= uint(pos-dictStart) || reps[0] >= dictSize || n > len(out)-pos {
			return pos, errCorrupt
		}
		d := int(reps[0]) + 1
		switch {
		case d >= n && n > 32:
			copy(out[pos:pos+n], out[pos-d:])
		case d >= 8 && pos+n+16 <= len(out):
			// Eight bytes at a time, even overlapping: each word read
			// lies wholly before the one written. The words may run up
			// to 16 bytes past the match into bytes decoded later, not
			// past the chunk. Most matches are short: up to 16 bytes,
			// two words and no loop.
			dst, src := out[pos:pos+16], out[pos-d:pos-d+16]
			binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
			binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[8:]))
			for i := 16; i < n; i += 8 {
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
	rc.rng, rc.code, rc.pos = rng, code, ip
	return pos, nil
}

// literal decodes a literal's 8 bits through the bit tree probs. It is
// a function of its own, not inlined, so that its loop has the registers
// to itself: inside decodeChunk, with that loop's variables live around
// it, the tree's loop spilled and reloaded several of them per bit.
func literal(rng, code uint32, ip int, in []byte, probs *[0x400]prob) (uint32, uint32, int, uint32) {
	sym := uint32(1)
	pv := uint32(probs[1])
	var b uint32
	for sym < 0x100 {
		// Two bits an iteration: the loop's counter, test and moves
		// cost as much as a third of a bit's instructions. (Eight, no
		// loop, measured no faster.)
		c0, c1 := uint32(probs[sym<<1&0x3FE]), uint32(probs[sym<<1&0x3FE|1])
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b, pv = treeBit(rng, code, pv, &probs[sym&0x3FF], c0, c1)
		sym = sym<<1 | b
		c0, c1 = uint32(probs[sym<<1&0x3FE]), uint32(probs[sym<<1&0x3FE|1])
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b, pv = treeBit(rng, code, pv, &probs[sym&0x3FF], c0, c1)
		sym = sym<<1 | b
	}
	return rng, code, ip, sym & 0xFF
}

// matchedLiteral decodes a literal after a match: the byte at distance
// reps[0], match, steers the probabilities while its bits agree with
// the literal's.
func matchedLiteral(rng, code uint32, ip int, in []byte, probs *[0x400]prob, match uint32) (uint32, uint32, int, uint32) {
	// While the bits agree with the match byte's, the probabilities
	// are those at 0x100 + 0x100*matchBit + sym; after the first that
	// differs, the plain tree's.
	sym := uint32(1)
	var b uint32
	for sym < 0x100 {
		mb := match >> 7 & 1
		match <<= 1
		i := 0x100 + mb<<8 + sym
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b = step(rng, code, &probs[i&0x3FF])
		sym = sym<<1 | b
		if b != mb {
			break
		}
	}
	if sym >= 0x100 {
		return rng, code, ip, sym & 0xFF
	}
	pv := uint32(probs[sym&0x3FF])
	for sym < 0x100 {
		c0, c1 := uint32(probs[sym<<1&0x3FE]), uint32(probs[sym<<1&0x3FE|1])
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b, pv = treeBit(rng, code, pv, &probs[sym&0x3FF], c0, c1)
		sym = sym<<1 | b
	}
	return rng, code, ip, sym & 0xFF
}

// decodeLen decodes a match length (less minMatchLen): 3 bits (0-7),
// choice2 and 3 bits (8-15), or 8 bits (16-271), each through a bit
// tree. Like literal, a function of its own for its registers.
func decodeLen(rng, code uint32, ip int, in []byte, lens *lenDecoder, ps uint32) (uint32, uint32, int, uint32) {
	var b uint32
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, b = step(rng, code, &lens.choice)
	tree, base := &lens.low[ps&15], uint32(0)
	if b != 0 {
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b = step(rng, code, &lens.choice2)
		if b != 0 {
			high := &lens.high
			t := uint32(1)
			pv := uint32(high[1])
			for range 4 { // two bits an iteration, as in literal
				c0, c1 := uint32(high[t<<1&0x1FE]), uint32(high[t<<1&0x1FE|1])
				rng, code, ip = norm(rng, code, ip, in)
				rng, code, b, pv = treeBit(rng, code, pv, &high[t&0x1FF], c0, c1)
				t = t<<1 | b
				c0, c1 = uint32(high[t<<1&0x1FE]), uint32(high[t<<1&0x1FE|1])
				rng, code, ip = norm(rng, code, ip, in)
				rng, code, b, pv = treeBit(rng, code, pv, &high[t&0x1FF], c0, c1)
				t = t<<1 | b
			}
			return rng, code, ip, 16 + t - 0x100
		}
		tree, base = &lens.mid[ps&15], 8
	}
	// Three bits, unrolled.
	pv := uint32(tree[1])
	c0, c1 := uint32(tree[2]), uint32(tree[3])
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, b, pv = treeBit(rng, code, pv, &tree[1], c0, c1)
	t := 2 | b
	c0, c1 = uint32(tree[t<<1&0xE]), uint32(tree[t<<1&0xE|1])
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, b, pv = treeBit(rng, code, pv, &tree[t&0xF], c0, c1)
	t = t<<1 | b
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, b, _ = treeBit(rng, code, pv, &tree[t&0xF], 0, 0)
	return rng, code, ip, base + (t<<1 | b) - 8
}

// decodeDist decodes a new match's distance: a 6-bit slot (its tree
// chosen by the length), then reverse bit trees and direct bits for its
// low bits. 0xFFFFFFFF is the end marker.
func (m *model) decodeDist(rng, code uint32, ip int, in []byte, length uint32) (uint32, uint32, int, uint32) {
	slotTree := &m.distSlot[min(length, lenToPosStates-1)]
	t, pv := uint32(1), uint32(slotTree[1])
	var b uint32
	for range distSlotBits / 2 { // two bits an iteration, as in literal
		c0, c1 := uint32(slotTree[t<<1&0x7E]), uint32(slotTree[t<<1&0x7E|1])
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b, pv = treeBit(rng, code, pv, &slotTree[t&0x7F], c0, c1)
		t = t<<1 | b
		c0, c1 = uint32(slotTree[t<<1&0x7E]), uint32(slotTree[t<<1&0x7E|1])
		rng, code, ip = norm(rng, code, ip, in)
		rng, code, b, pv = treeBit(rng, code, pv, &slotTree[t&0x7F], c0, c1)
		t = t<<1 | b
	}
	slot := t - 1<<distSlotBits
	if slot < startPosModel {
		return rng, code, ip, slot
	}
	footer := int(slot>>1) - 1
	dist := (2 | slot&1) << uint(footer)
	var bit uint32
	if slot < endPosModel {
		// A reverse bit tree of footer (1 to 5) bits; its nodes are a
		// bit tree's, only the value comes out in reverse.
		rev := (*[32]prob)(m.distSpec[dist-slot:][:32])
		t = 1
		for i := range footer {
			rng, code, ip = norm(rng, code, ip, in)
			rng, code, bit = step(rng, code, &rev[t&31])
			t = t<<1 | bit
			dist += bit << uint(i)
		}
		return rng, code, ip, dist
	}
	// Direct bits, then the 4 low bits through align.
	var v uint32
	for range footer - alignBits {
		rng, code, ip = norm(rng, code, ip, in)
		rng >>= 1
		// code >= rng: subtract and take a 1, branch-free.
		b := (code - rng) >> 31 // 1 if code < rng
		code -= rng & (b - 1)
		v = v<<1 | (1 - b)
	}
	dist += v << alignBits
	align := &m.align
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, bit = step(rng, code, &align[1])
	t = 2 | bit
	dist += bit
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, bit = step(rng, code, &align[t&15])
	t = t<<1 | bit
	dist += bit << 1
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, bit = step(rng, code, &align[t&15])
	t = t<<1 | bit
	dist += bit << 2
	rng, code, ip = norm(rng, code, ip, in)
	rng, code, bit = step(rng, code, &align[t&15])
	dist += bit << 3
	return rng, code, ip, dist
}
