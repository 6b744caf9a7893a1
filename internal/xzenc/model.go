package xzenc

import "math/bits"

// The LZMA probability model for lc=3, lp=0, pb=2 and the encoding of its
// three kinds of symbol: literals, matches and repeated-distance matches.

const (
	lc          = 3
	pb          = 2
	posMask     = 1<<pb - 1
	propsByte   = (pb*5+0)*9 + lc // 0x5D
	minMatchLen = 2
	maxMatchLen = 273

	lenLowBits  = 3
	lenMidBits  = 3
	lenHighBits = 8

	distSlotBits   = 6
	distStates     = 4
	startPosModel  = 4
	endPosModel    = 14
	fullDistances  = 1 << (endPosModel >> 1)
	alignBits      = 4
	lenToPosStates = 4
)

type lenCoder struct {
	choice  prob
	choice2 prob
	low     [1 << pb][1 << lenLowBits]prob
	mid     [1 << pb][1 << lenMidBits]prob
	high    [1 << lenHighBits]prob
}

func (lc *lenCoder) reset() {
	lc.choice, lc.choice2 = probInit, probInit
	for i := range lc.low {
		initProbs(lc.low[i][:])
		initProbs(lc.mid[i][:])
	}
	initProbs(lc.high[:])
}

// encode writes l = length - minMatchLen (0..271).
func (lc *lenCoder) encode(rc *rangeEncoder, l uint32, posState uint32) {
	switch {
	case l < 1<<lenLowBits:
		rc.bit(&lc.choice, 0)
		rc.bitTree(lc.low[posState][:], lenLowBits, l)
	case l < 1<<lenLowBits+1<<lenMidBits:
		rc.bit(&lc.choice, 1)
		rc.bit(&lc.choice2, 0)
		rc.bitTree(lc.mid[posState][:], lenMidBits, l-1<<lenLowBits)
	default:
		rc.bit(&lc.choice, 1)
		rc.bit(&lc.choice2, 1)
		rc.bitTree(lc.high[:], lenHighBits, l-1<<lenLowBits-1<<lenMidBits)
	}
}

// model is the adaptive state shared by all chunks of a stream.
type model struct {
	state uint32
	reps  [4]uint32 // 0-based distances, most recent first

	literal    [0x300 << lc]prob
	isMatch    [numStates][1 << pb]prob
	isRep      [numStates]prob
	isRepG0    [numStates]prob
	isRepG1    [numStates]prob
	isRepG2    [numStates]prob
	isRep0Long [numStates][1 << pb]prob
	distSlot   [lenToPosStates][1 << distSlotBits]prob
	distSpec   [fullDistances - endPosModel + 1]prob
	align      [1 << alignBits]prob
	matchLen   lenCoder
	repLen     lenCoder
}

func (m *model) reset() {
	m.state = 0
	m.reps = [4]uint32{}
	initProbs(m.literal[:])
	for i := range numStates {
		initProbs(m.isMatch[i][:])
		initProbs(m.isRep0Long[i][:])
	}
	initProbs(m.isRep[:])
	initProbs(m.isRepG0[:])
	initProbs(m.isRepG1[:])
	initProbs(m.isRepG2[:])
	for i := range m.distSlot {
		initProbs(m.distSlot[i][:])
	}
	initProbs(m.distSpec[:])
	initProbs(m.align[:])
	m.matchLen.reset()
	m.repLen.reset()
}

// literal writes byte cur at position pos; prev is the byte before it and
// match the byte at distance reps[0] (used after a match).
func (m *model) encodeLiteral(rc *rangeEncoder, pos uint32, prev, cur, match byte) {
	rc.bit(&m.isMatch[m.state][pos&posMask], 0)
	probs := m.literal[0x300*uint32(prev>>(8-lc)):][:0x300]
	sym := uint32(cur) | 0x100
	if m.state < 7 {
		for sym < 0x10000 {
			rc.bit(&probs[sym>>8], sym>>7&1)
			sym <<= 1
		}
	} else {
		// A matched literal: the byte at the last match distance steers
		// the probabilities while its bits agree with cur's.
		mb := uint32(match)
		offset := uint32(0x100)
		for sym < 0x10000 {
			mb <<= 1
			matchBit := mb & offset
			rc.bit(&probs[offset+matchBit+sym>>8], sym>>7&1)
			sym <<= 1
			offset &^= mb ^ sym
		}
	}
	switch {
	case m.state < 4:
		m.state = 0
	case m.state < 10:
		m.state -= 3
	default:
		m.state -= 6
	}
}

// distSlotOf returns the slot of 0-based distance d.
func distSlotOf(d uint32) uint32 {
	if d < startPosModel {
		return d
	}
	n := uint32(31 - bits.LeadingZeros32(d))
	return n<<1 | d>>(n-1)&1
}

// encodeMatch writes a match of length l at 0-based distance d.
func (m *model) encodeMatch(rc *rangeEncoder, pos, d, l uint32) {
	ps := pos & posMask
	rc.bit(&m.isMatch[m.state][ps], 1)
	rc.bit(&m.isRep[m.state], 0)
	m.matchLen.encode(rc, l-minMatchLen, ps)
	lenState := min(l-minMatchLen, lenToPosStates-1)
	slot := distSlotOf(d)
	rc.bitTree(m.distSlot[lenState][:], distSlotBits, slot)
	if slot >= startPosModel {
		footer := int(slot>>1) - 1
		base := (2 | slot&1) << uint(footer)
		reduced := d - base
		if slot < endPosModel {
			rc.bitTreeReverse(m.distSpec[base-slot:], footer, reduced)
		} else {
			rc.direct(reduced>>alignBits, footer-alignBits)
			rc.bitTreeReverse(m.align[:], alignBits, reduced&(1<<alignBits-1))
		}
	}
	m.reps = [4]uint32{d, m.reps[0], m.reps[1], m.reps[2]}
	if m.state < 7 {
		m.state = 7
	} else {
		m.state = 10
	}
}

// encodeRep writes a match of length l >= 2 at distance reps[r]. The
// parser never codes a "short rep" (one byte at reps[0], isRep0Long 0):
// an earlier measurement found it changed neither size nor speed.
func (m *model) encodeRep(rc *rangeEncoder, pos, r, l uint32) {
	ps := pos & posMask
	rc.bit(&m.isMatch[m.state][ps], 1)
	rc.bit(&m.isRep[m.state], 1)
	if r == 0 {
		rc.bit(&m.isRepG0[m.state], 0)
		rc.bit(&m.isRep0Long[m.state][ps], 1)
	} else {
		rc.bit(&m.isRepG0[m.state], 1)
		d := m.reps[r]
		if r == 1 {
			rc.bit(&m.isRepG1[m.state], 0)
		} else {
			rc.bit(&m.isRepG1[m.state], 1)
			rc.bit(&m.isRepG2[m.state], r-2)
			if r == 3 {
				m.reps[3] = m.reps[2]
			}
			m.reps[2] = m.reps[1]
		}
		m.reps[1] = m.reps[0]
		m.reps[0] = d
	}
	m.repLen.encode(rc, l-minMatchLen, ps)
	if m.state < 7 {
		m.state = 8
	} else {
		m.state = 11
	}
}

// encodeShortRep writes one byte at distance reps[0] (a "short rep").
func (m *model) encodeShortRep(rc *rangeEncoder, pos uint32) {
	ps := pos & posMask
	rc.bit(&m.isMatch[m.state][ps], 1)
	rc.bit(&m.isRep[m.state], 1)
	rc.bit(&m.isRepG0[m.state], 0)
	rc.bit(&m.isRep0Long[m.state][ps], 0)
	m.state = shortRepNext(m.state)
}

// The state machine: the state after a literal, a match, a rep and a
// short rep.
func litNext(s uint32) uint32 {
	switch {
	case s < 4:
		return 0
	case s < 10:
		return s - 3
	}
	return s - 6
}

func matchNext(s uint32) uint32 {
	if s < 7 {
		return 7
	}
	return 10
}

func repNext(s uint32) uint32 {
	if s < 7 {
		return 8
	}
	return 11
}

func shortRepNext(s uint32) uint32 {
	if s < 7 {
		return 9
	}
	return 11
}
