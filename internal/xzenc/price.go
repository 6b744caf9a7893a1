package xzenc

import "math/bits"

// Prices: what coding a symbol costs under the current probabilities, in
// 1/16 bit, for Normal mode's parser. They only steer the parse; the
// range coder codes whatever is chosen exactly.

const (
	priceFrac   = 4 // fractional bits of a price
	infinite    = 1 << 30
	lenSyms     = maxMatchLen - minMatchLen + 1
	refreshLen  = 64 // uses of a length coder between two refreshes of its prices
	refreshDist = 64 // matches between two refreshes of the distance prices
)

// bitPrices[p>>2] is -log2(p/2048) for a probability p (of the bit being
// coded) in 1/16 bit: 512 entries, each for the middle of its 4 values of p.
var bitPrices = func() (t [1 << (probBits - 2)]uint32) {
	for i := range t {
		w := uint64(i<<2 + 2)
		// log2(w) = e + log2(x/2^15) with x in [2^15, 2^16); its
		// fraction bit by bit: squaring x doubles its logarithm.
		e := bits.Len64(w) - 1
		x := w << (15 - e)
		frac := uint32(0)
		for range priceFrac {
			x = x * x >> 15
			frac <<= 1
			if x >= 1<<16 {
				x >>= 1
				frac |= 1
			}
		}
		t[i] = probBits<<priceFrac - (uint32(e)<<priceFrac | frac)
	}
	return t
}()

func price0(p prob) uint32 { return bitPrices[p>>2] }
func price1(p prob) uint32 { return bitPrices[(1<<probBits-p)>>2] }

// priceBit is the price of bit b.
func priceBit(p prob, b uint32) uint32 {
	return bitPrices[(uint32(p)^-b&(1<<probBits-1)+b)>>2]
}

// treePrice is the price of coding the n low bits of v through probs as
// rangeEncoder.bitTree does.
func treePrice(probs []prob, n int, v uint32) uint32 {
	price, m := uint32(0), uint32(1)
	for i := n - 1; i >= 0; i-- {
		b := v >> uint(i) & 1
		price += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return price
}

// reverseTreePrice is the price of rangeEncoder.bitTreeReverse.
func reverseTreePrice(probs []prob, n int, v uint32) uint32 {
	price, m := uint32(0), uint32(1)
	for range n {
		b := v & 1
		v >>= 1
		price += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return price
}

// prices caches the prices of lengths and distances, which are costly to
// compute and change slowly; the parser refreshes them after some uses.
type prices struct {
	matchLen, repLen lenPrices
	// slot[ls][s]: distance slot s at length state ls, with its direct
	// bits (the 4 align bits excluded).
	slot [lenToPosStates][1 << distSlotBits]uint32
	// near[ls][d]: the whole price of 0-based distance d < fullDistances.
	near      [lenToPosStates][fullDistances]uint32
	align     [1 << alignBits]uint32
	distUses  int // matches coded since the distance prices were computed
	alignUses int // far matches coded since the align prices were computed
}

// lenPrices caches one length coder's prices for lengths 2 to lim.
type lenPrices struct {
	p    [1 << pb][lenSyms]uint32
	uses int
}

func (lp *lenPrices) refresh(c *lenCoder, lim int) {
	lp.uses = 0
	c0, c1 := price0(c.choice), price1(c.choice)
	c10, c11 := c1+price0(c.choice2), c1+price1(c.choice2)
	for ps := range lp.p {
		t := &lp.p[ps]
		for l := 0; l <= lim-minMatchLen; l++ {
			switch {
			case l < 1<<lenLowBits:
				t[l] = c0 + treePrice(c.low[ps][:], lenLowBits, uint32(l))
			case l < 1<<lenLowBits+1<<lenMidBits:
				t[l] = c10 + treePrice(c.mid[ps][:], lenMidBits, uint32(l-1<<lenLowBits))
			default:
				t[l] = c11 + treePrice(c.high[:], lenHighBits, uint32(l-1<<lenLowBits-1<<lenMidBits))
			}
		}
	}
}

func (pr *prices) refreshDist(m *model) {
	pr.distUses = 0
	for ls := range pr.slot {
		for s := range uint32(1 << distSlotBits) {
			p := treePrice(m.distSlot[ls][:], distSlotBits, s)
			if s >= endPosModel {
				p += (s>>1 - 1 - alignBits) << priceFrac
			}
			pr.slot[ls][s] = p
		}
		for d := range uint32(fullDistances) {
			s := distSlotOf(d)
			p := pr.slot[ls][s]
			if s >= startPosModel {
				footer := int(s>>1) - 1
				base := (2 | s&1) << uint(footer)
				p += reverseTreePrice(m.distSpec[base-s:], footer, d-base)
			}
			pr.near[ls][d] = p
		}
	}
}

func (pr *prices) refreshAlign(m *model) {
	pr.alignUses = 0
	for i := range uint32(1 << alignBits) {
		pr.align[i] = reverseTreePrice(m.align[:], alignBits, i)
	}
}

// distPrice is the price of 0-based distance d for a match of length l.
func (pr *prices) distPrice(d uint32, l int) uint32 {
	ls := min(l-minMatchLen, lenToPosStates-1)
	if d < fullDistances {
		return pr.near[ls][d]
	}
	return pr.slot[ls][distSlotOf(d)] + pr.align[d&(1<<alignBits-1)]
}

// literalPrice is the price of byte cur after byte prev, as a matched
// literal against mb when matched.
func (m *model) literalPrice(prev, cur, mb byte, matched bool) uint32 {
	probs := m.literal[0x300*uint32(prev>>(8-lc)):][:0x300]
	sym := uint32(cur) | 0x100
	price := uint32(0)
	if !matched {
		for sym < 0x10000 {
			price += priceBit(probs[sym>>8], sym>>7&1)
			sym <<= 1
		}
		return price
	}
	mbs := uint32(mb)
	offset := uint32(0x100)
	for sym < 0x10000 {
		mbs <<= 1
		price += priceBit(probs[offset+mbs&offset+sym>>8], sym>>7&1)
		sym <<= 1
		offset &^= mbs ^ sym
	}
	return price
}

// repPrice is the price of choosing rep r (0 to 3, long) after isMatch
// and isRep in state s at position state ps.
func (m *model) repPrice(r int, s, ps uint32) uint32 {
	if r == 0 {
		return price0(m.isRepG0[s]) + price1(m.isRep0Long[s][ps])
	}
	p := price1(m.isRepG0[s])
	if r == 1 {
		return p + price0(m.isRepG1[s])
	}
	return p + price1(m.isRepG1[s]) + priceBit(m.isRepG2[s], uint32(r-2))
}
