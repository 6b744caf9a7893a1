package xzenc

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// Match finding: a hash chain over 4-byte prefixes (like xz's HC4) and a
// greedy parser with one step of lazy evaluation (like xz's fast mode, the
// mode of presets 0 to 3), searching deeper than xz -1 (DefaultDepth).

const (
	hashBits  = 17
	niceLen   = 96 // a match this long is taken without looking further
	chainBits = 20 // the chain remembers 1 MiB of positions
	// chunkLimit is where a chunk is closed: one more step (a match of at
	// most about 40 bytes, or 1+maxSkip literals of at most 7 bytes each)
	// must not take it past LZMA2's 64 KiB.
	chunkLimit    = 1<<16 - 512
	skipAfter     = 256 // literals in a row before searching less
	maxSkip       = 32
	chunkMaxUnpkd = 1 << 21

	// window is the most data a stream written with Write holds. When it
	// is full, the data more than 1 to 2 MiB behind the next position
	// (where the hash chain cannot reach) makes room; a whole multiple of
	// the chain's length, so that chain slots stay where they are.
	window = 4 << 20
	// lookahead is the data Write keeps beyond the next position until
	// Close: the longest match, one more for lazy evaluation, and the
	// literals coded without search. With it a stream of up to window
	// bytes comes out the same from Write as from Encode.
	lookahead = 512
	// maxReach is the farthest Normal mode's match finder reaches back,
	// whatever the dictionary.
	maxReach = 4 << 20
)

// DefaultDepth is the default number of hash-chain candidates per
// position. xz -1 uses 8. More candidates give a smaller stream for more
// encode time: 16 costs little over 8, 32 much more
// (BenchmarkEncodeDepth). Unpacking is what users
// wait for most, so a little more search than xz -1.
const DefaultDepth = 16

// Encoder compresses byte slices to .xz streams. Its tables are reused
// from one call to the next, so a long-lived Encoder allocates nothing
// after its first use. An Encoder is not safe for concurrent use.
type Encoder struct {
	// Options are the parameters of the streams Encode and Reset start;
	// the zero value is PresetFast.
	Options

	head  []uint32 // hash of 4 bytes (7 for HC4 in Normal mode) -> position+1 of the latest occurrence
	chain []uint32 // HC4: position & cycMask -> position+1 of the previous one; BT4: the tree's two links per position
	head2 []uint32 // Normal mode: 2-byte prefix -> position+1
	head3 []uint32 // Normal mode: 3-byte hash -> position+1
	head4 []uint32 // Normal mode with HC4: 4-byte hash -> position+1
	rc    rangeEncoder
	m     model
	hdr   []byte

	// data is the input: what Encode was given, or win[:n] for Write.
	// Positions (int) index it, and the hash tables hold position + 1 (0
	// for none), rebased when the window slides; so the search loop is
	// the same for both.
	data    []byte
	win     []byte // the window of Write, kept for the next stream
	total   int64  // bytes of the block so far
	ins     int    // next position to insert into the hash chain
	maxDist uint32 // largest 0-based distance allowed (dictionary - 1)
	cycMask int    // the history the finder reaches, a power of two, minus 1
	winMax  int    // the most data Write holds
	nice    int    // Options.nice()
	depth   int    // Options.depth()
	w       io.Writer
	cw      countWriter
	next    byte // control bits of the next LZMA chunk: 0xE0, 0xC0, 0xA0 or 0x80
	start   int  // position where the current chunk starts
	err     error

	blockStart int64    // output offset of the block header
	dict       int      // the stream's dictionary size
	records    []record // the blocks ended so far, for the index
	blockFull  bool     // Write filled the block: the next byte starts another
	// The parser's state between calls of run.
	pos      int   // next position to code
	lazy     match // the match found at pos by lazy evaluation, if haveLazy
	haveLazy bool
	misses   int // positions in a row without any match

	// Normal mode's parser (optimal.go).
	opt         []node  // the nodes of one parse
	ops         []op    // the parse's result, in order
	mbuf        []match // findAll's result
	saved       []match // the matches found at savedPos by the last parse
	savedPos    int     // -1 for none
	pr          prices
	pricesFresh bool
}

// match is a candidate: length and 0-based distance.
type match struct {
	len, dist uint32
}

func (e *Encoder) hash(p int) uint32 {
	return binary.LittleEndian.Uint32(e.data[p:]) * 2654435761 >> (32 - hashBits)
}

// insertTo adds the positions before q to the hash chain.
func (e *Encoder) insertTo(q int) {
	end := min(q, len(e.data)-3)
	for p := e.ins; p < end; p++ {
		h := e.hash(p)
		e.chain[p&e.cycMask] = e.head[h]
		e.head[h] = uint32(p + 1)
	}
	e.ins = max(e.ins, q)
}

// find returns the longest match at p found within the search depth
// (length 0 if none) and inserts p.
func (e *Encoder) find(p int) match {
	e.insertTo(p)
	if p+4 > len(e.data) {
		e.ins = max(e.ins, p+1)
		return match{}
	}
	h := e.hash(p)
	cand := e.head[h]
	e.chain[p&e.cycMask] = cand
	e.head[h] = uint32(p + 1)
	e.ins = p + 1

	limit := min(len(e.data)-p, maxMatchLen)
	var best match
	depth := e.depth
	cur := binary.LittleEndian.Uint32(e.data[p:])
	for ; cand != 0 && depth > 0; depth-- {
		c := int(cand - 1)
		d := uint32(p - c - 1)
		if d > e.maxDist || p-c > e.cycMask {
			break
		}
		cand = e.chain[c&e.cycMask]
		if binary.LittleEndian.Uint32(e.data[c:]) != cur ||
			int(best.len) >= limit || e.data[c+int(best.len)] != e.data[p+int(best.len)] {
			continue
		}
		if l := matchLen(e.data[c:], e.data[p:p+limit]); l > int(best.len) {
			best = match{uint32(l), d}
			if l >= e.nice || l == limit {
				break
			}
		}
	}
	return best
}

// matchLen returns the length of the common prefix of a and b (len(a) >=
// len(b)).
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// repLen returns the length of the match at p with 0-based distance d.
func (e *Encoder) repLen(p int, d uint32, limit int) int {
	if int(d) >= p {
		return 0
	}
	c := p - int(d) - 1
	if e.data[c] != e.data[p] || limit < 2 || e.data[c+1] != e.data[p+1] {
		return 0
	}
	return matchLen(e.data[c:], e.data[p:p+limit])
}

// changePair reports whether a match at distance big is so much farther
// than one at distance small that one byte of length is not worth it.
func changePair(small, big uint32) bool { return small < big>>7 }

// startLZMA2 sets the model and the parser to the start of a stream.
func (e *Encoder) startLZMA2() {
	e.m.reset()
	e.rc.reset()
	e.next, e.start, e.ins = 0xE0, 0, 0
	e.total = 0
	e.pos, e.haveLazy, e.misses = 0, false, 0
	e.savedPos, e.pricesFresh = -1, false
}

// run codes e.data from e.pos as LZMA2 chunks to e.w: to its end if final
// (and then ends the LZMA2 data), else up to lookahead bytes before it.
func (e *Encoder) run(final bool) {
	if e.Mode == Normal {
		e.runNormal(final)
		return
	}
	n := len(e.data)
	end := n
	if !final {
		end = n - lookahead
	}
	p, next, haveNext, misses := e.pos, e.lazy, e.haveLazy, e.misses
	for p < end && e.err == nil {
		limit := min(n-p, maxMatchLen)
		var main match
		if haveNext {
			main, haveNext = next, false
		} else {
			main = e.find(p)
		}
		// The longest repeated-distance match.
		var repL, repIdx int
		for i := range 4 {
			if l := e.repLen(p, e.m.reps[i], limit); l > repL {
				repL, repIdx = l, i
			}
		}
		var l int
		switch {
		case repL >= e.nice:
			l = e.emitRep(p, repIdx, repL)
		case int(main.len) >= e.nice:
			l = e.emitMatch(p, main)
		case repL >= 2 && (repL+1 >= int(main.len) ||
			repL+2 >= int(main.len) && main.dist > 1<<9 ||
			repL+3 >= int(main.len) && main.dist > 1<<15):
			l = e.emitRep(p, repIdx, repL)
		case main.len < 2:
			l = e.emitLiteral(p)
			if misses++; misses > skipAfter {
				// Nothing matched for a while (random or already
				// compressed data): code a few more bytes as literals
				// without searching or hashing them, more the longer
				// the drought lasts, as LZ4's acceleration does.
				k := min((misses-skipAfter)>>5+1, maxSkip, n-p-1)
				for i := 1; i <= k; i++ {
					e.emitLiteral(p + i)
				}
				l += k
				e.ins = max(e.ins, p+l)
			}
		default:
			// Lazy evaluation: a better match one byte later makes this
			// byte a literal.
			next, haveNext = e.find(p+1), true
			ml := main.len
			if next.len >= 2 && (next.len >= ml && next.dist < main.dist ||
				next.len == ml+1 && !changePair(main.dist, next.dist) ||
				next.len > ml+1 ||
				next.len+1 >= ml && ml >= 3 && changePair(next.dist, main.dist)) {
				l = e.emitLiteral(p)
				break
			}
			lim := max(2, int(ml)-1)
			if p+1+lim <= n {
				for i := range 4 {
					if e.repLen(p+1, e.m.reps[i], lim) >= lim {
						l = e.emitLiteral(p)
						break
					}
				}
				if l != 0 {
					break
				}
			}
			haveNext = false
			l = e.emitMatch(p, main)
		}
		if main.len >= 2 || repL >= 2 {
			misses = 0
		}
		p += l
		if l > 1 {
			e.insertTo(p)
		}
		if e.rc.pending() >= chunkLimit || p-e.start+maxMatchLen > chunkMaxUnpkd {
			e.flushChunk(p)
		}
	}
	e.pos, e.lazy, e.haveLazy, e.misses = p, next, haveNext, misses
	if !final {
		return
	}
	if e.err == nil && n > e.start {
		e.flushChunk(n)
	}
	e.write([]byte{0}) // end of LZMA2 data
}

// makeRoom codes the full window up to its lookahead, ends the chunk there
// (a stored chunk needs its bytes) and drops the data the hash chain can
// no longer reach, a multiple of the chain's length.
func (e *Encoder) makeRoom() {
	if c := cap(e.data); c < e.winMax {
		// Grow rather than slide while under the window.
		c = min(2*c, e.winMax)
		if cap(e.win) < c {
			e.win = append(e.win[:len(e.data)], make([]byte, c-len(e.data))...)
		}
		e.data = e.win[:len(e.data):c]
		return
	}
	e.run(false)
	if e.err != nil {
		return
	}
	if e.pos > e.start {
		e.flushChunk(e.pos)
	}
	// The chain is full length here, since the data outgrew it; the
	// window is at least 3 times the history, so shift >= the history.
	shift := (e.pos - e.cycMask - 1) &^ e.cycMask
	n := copy(e.data, e.data[shift:])
	e.data = e.data[:n]
	rebase(e.head, uint32(shift))
	rebase(e.chain, uint32(shift))
	rebase(e.head2, uint32(shift))
	rebase(e.head3, uint32(shift))
	rebase(e.head4, uint32(shift))
	e.pos -= shift
	e.start -= shift
	e.ins -= shift
	if e.savedPos >= 0 { // none is left at the end of run, but in case
		e.savedPos -= shift
	}
}

func (e *Encoder) emitLiteral(p int) int {
	var prev, mb byte
	if p > 0 {
		prev = e.data[p-1]
	}
	if d := int(e.m.reps[0]); p > d {
		mb = e.data[p-d-1]
	}
	e.m.encodeLiteral(&e.rc, uint32(p), prev, e.data[p], mb)
	return 1
}

func (e *Encoder) emitMatch(p int, m match) int {
	e.m.encodeMatch(&e.rc, uint32(p), m.dist, m.len)
	return int(m.len)
}

func (e *Encoder) emitRep(p, r, l int) int {
	e.m.encodeRep(&e.rc, uint32(p), uint32(r), uint32(l))
	return l
}

// flushChunk ends the chunk of the bytes up to p and writes it: as LZMA,
// or stored when LZMA did not make it smaller (already compressed files
// in a section), which decoders copy instead of decoding byte by byte.
func (e *Encoder) flushChunk(p int) {
	e.rc.flush()
	u := p - e.start
	if len(e.rc.buf) >= u { // u <= 64 KiB: one stored chunk
		ctl := byte(2)
		if e.next == 0xE0 { // the first chunk
			ctl = 1 // dictionary reset
			e.next = 0xC0
		} else {
			e.next = max(e.next, 0xA0)
		}
		e.hdr = append(e.hdr[:0], ctl, byte((u-1)>>8), byte(u-1))
		e.write(e.hdr)
		e.write(e.data[e.start:p])
		// The decoder resets its state at the next LZMA chunk; so do we.
		e.m.reset()
		e.pricesFresh = false
	} else {
		u, c := u-1, len(e.rc.buf)-1
		e.hdr = append(e.hdr[:0], e.next|byte(u>>16), byte(u>>8), byte(u), byte(c>>8), byte(c))
		if e.next >= 0xC0 {
			e.hdr = append(e.hdr, propsByte)
		}
		e.write(e.hdr)
		e.write(e.rc.buf)
		e.next = 0x80
	}
	e.start = p
	e.rc.reset()
}

func (e *Encoder) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	e.err = err
}

// rebase moves the positions + 1 in t back by shift, to 0 (none) for
// those that fall out of the window. It costs about 1% of encoding the
// data that made room for it.
func rebase(t []uint32, shift uint32) {
	for i, v := range t {
		t[i] = (v - shift) &^ -b2u(v <= shift)
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// prepare sizes the tables for size bytes of data and a dictionary of
// dict bytes.
func (e *Encoder) prepare(size int64, dict int) {
	if e.head == nil {
		e.head = make([]uint32, 1<<hashBits)
		e.rc.buf = make([]byte, 0, 1<<16+64)
	} else {
		clear(e.head)
	}
	e.nice, e.depth = e.Options.nice(), e.Options.depth()
	cyc, win := 1<<chainBits, window
	if e.Mode == Normal {
		// The history reaches as far as the dictionary, up to maxReach;
		// sliding the window by whole histories needs 3 of them.
		cyc = min(nextPow2(dict), maxReach)
		win = max(window, 3*cyc)
		if e.head2 == nil {
			e.head2 = make([]uint32, 1<<16)
			e.head3 = make([]uint32, 1<<hash3Bits)
			e.head4 = make([]uint32, 1<<hash4Bits)
			e.opt = make([]node, optWindow+1)
		} else {
			clear(e.head2)
			clear(e.head3)
			clear(e.head4)
		}
		e.pricesFresh = false
	}
	if cyc-1 != e.cycMask {
		// A new history length invalidates the chain's slots; they are
		// all written again before being read, but its length must match.
		e.chain = e.chain[:0]
	}
	e.cycMask, e.winMax = cyc-1, win
	e.growChain(int(min(size, int64(cyc))))
	e.maxDist = uint32(dict - 1)
}

// growChain makes the chain long enough for n bytes of data. It is
// indexed by position & cycMask: a shorter chain is enough while the data
// is shorter than it, and growing it keeps every slot.
func (e *Encoder) growChain(n int) {
	want := min(nextPow2(n), e.cycMask+1)
	if e.MatchFinder == BT4 {
		want *= 2
	}
	if len(e.chain) < want {
		e.chain = append(e.chain, make([]uint32, want-len(e.chain))...)
	}
}

func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}
