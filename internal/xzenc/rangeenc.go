package xzenc

// The LZMA range encoder with adaptive binary probabilities.

const (
	probBits  = 11
	probInit  = 1 << (probBits - 1)
	moveBits  = 5
	topValue  = 1 << 24
	numStates = 12
)

type prob uint16

// rangeEncoder writes into buf; one LZMA2 chunk at a time.
type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	buf       []byte
}

func (rc *rangeEncoder) reset() {
	rc.low, rc.rng, rc.cache, rc.cacheSize = 0, 0xFFFFFFFF, 0, 1
	rc.buf = rc.buf[:0]
}

// pending is the number of bytes the chunk has when flushed now.
func (rc *rangeEncoder) pending() int { return len(rc.buf) + int(rc.cacheSize) + 4 }

func (rc *rangeEncoder) shiftLow() {
	if uint32(rc.low) < 0xFF000000 || rc.low>>32 != 0 {
		carry := byte(rc.low >> 32)
		temp := rc.cache
		for {
			rc.buf = append(rc.buf, temp+carry)
			temp = 0xFF
			rc.cacheSize--
			if rc.cacheSize == 0 {
				break
			}
		}
		rc.cache = byte(rc.low >> 24)
	}
	rc.cacheSize++
	rc.low = (rc.low & 0x00FFFFFF) << 8
}

// bit codes b (0 or 1) with probability *p of a 0, branch-free: on
// incompressible data b is a coin toss, and mispredicted branches made
// this much slower (BenchmarkEncode on random sections).
func (rc *rangeEncoder) bit(p *prob, b uint32) {
	pv := uint32(*p)
	bound := (rc.rng >> probBits) * pv
	mask := -b // all ones for a 1
	rc.low += uint64(bound & mask)
	rc.rng = bound&^mask | (rc.rng-bound)&mask
	p0 := pv + (1<<probBits-pv)>>moveBits
	p1 := pv - pv>>moveBits
	*p = prob(p0&^mask | p1&mask)
	for rc.rng < topValue {
		rc.rng <<= 8
		rc.shiftLow()
	}
}

// direct writes the n low bits of v, most significant first, each with
// probability one half.
func (rc *rangeEncoder) direct(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		rc.rng >>= 1
		if v>>uint(i)&1 != 0 {
			rc.low += uint64(rc.rng)
		}
		for rc.rng < topValue {
			rc.rng <<= 8
			rc.shiftLow()
		}
	}
}

func (rc *rangeEncoder) flush() {
	for range 5 {
		rc.shiftLow()
	}
}

// bitTree writes the n low bits of v, most significant first, through the
// binary tree of probabilities probs (1<<n entries, index 0 unused).
func (rc *rangeEncoder) bitTree(probs []prob, n int, v uint32) {
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		b := v >> uint(i) & 1
		rc.bit(&probs[m], b)
		m = m<<1 | b
	}
}

// bitTreeReverse writes the n low bits of v, least significant first.
func (rc *rangeEncoder) bitTreeReverse(probs []prob, n int, v uint32) {
	m := uint32(1)
	for range n {
		b := v & 1
		v >>= 1
		rc.bit(&probs[m], b)
		m = m<<1 | b
	}
}

func initProbs(p []prob) {
	for i := range p {
		p[i] = probInit
	}
}
