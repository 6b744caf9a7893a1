package xzenc

import "encoding/binary"

// Normal mode's match finders. Each position is inserted exactly once, in
// order, by findAll (which also searches it) or skip. findAll returns
// the matches at a position with strictly increasing lengths (so also
// increasing distances): for each length, the nearest occurrence seen.
//
// BT4's tree holds the positions of each 4-byte hash. HC4's chain, in
// Normal mode, links the positions of each hash of the first hcHashLen
// bytes: a chain of 4-byte prefixes fills its Depth with the short
// matches of common prefixes (indentation, keywords) and misses the long
// ones further back (measured on Go source: at NiceLen 48 and Depth 16,
// 1.017x xz -6's size instead of 1.039x, and faster). Besides, heads find
// the latest occurrence of the position's first 2 bytes (head2, indexed
// by them), 3 (head3, hashed) and, for HC4, 4 (head4, hashed): short
// matches only pay when near.

const (
	hash3Bits = 16
	hash4Bits = 16
	hcHashLen = 7
)

func hash3(v uint32) uint32 { return (v << 8) * 2654435761 >> (32 - hash3Bits) }
func hash4(v uint32) uint32 { return v * 2654435761 >> (32 - hash4Bits) }

// hashLong returns the chain's hash of the hcHashLen bytes at p (or of
// the bytes up to the end of the data, too close to it).
func (e *Encoder) hashLong(p int) uint32 {
	var x uint64
	if len(e.data)-p >= 8 {
		x = binary.LittleEndian.Uint64(e.data[p:])
	} else {
		var b [8]byte
		copy(b[:], e.data[p:])
		x = binary.LittleEndian.Uint64(b[:])
	}
	return uint32((x << (64 - 8*hcHashLen)) * 0x9E3779B97F4A7C15 >> (64 - hashBits))
}

// findAll inserts p (== e.ins) and returns its matches in e.mbuf. When
// the longest reaches NiceLen it is extended as far as it goes (up to
// maxMatchLen).
func (e *Encoder) findAll(p int) []match {
	e.ins = p + 1
	avail := len(e.data) - p
	if avail < 4 {
		return nil
	}
	v := binary.LittleEndian.Uint32(e.data[p:])
	h2, h3 := v&0xFFFF, hash3(v)
	c2, c3, c4 := e.head2[h2], e.head3[h3], uint32(0)
	e.head2[h2], e.head3[h3] = uint32(p+1), uint32(p+1)
	if e.MatchFinder == HC4 {
		h4 := hash4(v)
		c4, e.head4[h4] = e.head4[h4], uint32(p+1)
	}
	out := e.mbuf[:0]
	limit := min(avail, maxMatchLen)
	best := 1
	cur := e.data[p : p+limit]
	for _, c := range [3]uint32{c2, c3, c4} {
		if c == 0 || int(c) <= p-int(e.maxDist)-1 {
			continue
		}
		prev := e.data[int(c)-1:]
		if best < limit && prev[best] == cur[best] {
			if l := matchLen(prev, cur); l > best {
				best = l
				out = append(out, match{uint32(l), uint32(p - int(c))})
			}
		}
	}
	if e.MatchFinder == BT4 {
		out = e.btSearch(p, v*2654435761>>(32-hashBits), avail, best, out)
	} else {
		out = e.hcSearch(p, e.hashLong(p), limit, best, out)
	}
	if n := len(out); n > 0 && int(out[n-1].len) == e.nice && e.nice < limit {
		m := &out[n-1]
		m.len = uint32(matchLen(e.data[p-int(m.dist)-1:], cur))
	}
	e.mbuf = out
	return out
}

// skipTo inserts the positions from e.ins up to q without searching them.
func (e *Encoder) skipTo(q int) {
	for p := e.ins; p < q; p++ {
		avail := len(e.data) - p
		if avail < 4 {
			break
		}
		v := binary.LittleEndian.Uint32(e.data[p:])
		e.head2[v&0xFFFF], e.head3[hash3(v)] = uint32(p+1), uint32(p+1)
		if e.MatchFinder == BT4 {
			e.btSearch(p, v*2654435761>>(32-hashBits), avail, maxMatchLen, nil)
		} else {
			e.head4[hash4(v)] = uint32(p + 1)
			h := e.hashLong(p)
			e.chain[p&e.cycMask] = e.head[h]
			e.head[h] = uint32(p + 1)
		}
	}
	e.ins = max(e.ins, q)
}

// hcSearch walks the hash chain of p (of hash h), appending to out the
// matches longer than best, and longer than hcHashLen-1: shorter ones
// are hash collisions, the heads find those worth having.
func (e *Encoder) hcSearch(p int, h uint32, limit, best int, out []match) []match {
	cand := e.head[h]
	e.chain[p&e.cycMask] = cand
	e.head[h] = uint32(p + 1)
	cur := e.data[p : p+limit]
	first := binary.LittleEndian.Uint32(cur)
	best = max(best, min(hcHashLen-1, limit))
	for depth := e.depth; cand != 0 && depth > 0; depth-- {
		c := int(cand - 1)
		d := p - c - 1
		if d > int(e.maxDist) || d >= e.cycMask {
			break
		}
		cand = e.chain[c&e.cycMask]
		prev := e.data[c:]
		if best >= limit || prev[best] != cur[best] || binary.LittleEndian.Uint32(prev) != first {
			continue
		}
		if l := matchLen(prev, cur); l > best {
			best = l
			out = append(out, match{uint32(l), uint32(d)})
			if l >= e.nice {
				break
			}
		}
	}
	return out
}

// btSearch inserts p into the binary tree of its hash, whose nodes are
// the earlier positions of that hash ordered by the bytes that follow
// them (up to NiceLen): p becomes the root, and the walk from the old
// root to where p belongs splits the tree into p's two subtrees. The
// nodes on that path are the closest strings to p's, so the walk meets
// its longest matches; those longer than best are appended to out (when
// out is not nil). chain[2*i] links to the smaller strings than that of
// position i, chain[2*i+1] to the greater.
func (e *Encoder) btSearch(p int, h4 uint32, avail, best int, out []match) []match {
	cand := e.head[h4]
	e.head[h4] = uint32(p + 1)
	limit := min(avail, e.nice)
	cur := e.data[p : p+limit]
	son := e.chain
	less, more := 2*(p&e.cycMask), 2*(p&e.cycMask)+1 // the slots to fill next
	lenLess, lenMore := 0, 0                         // common prefix with the bounds so far
	for depth := e.depth; ; depth-- {
		c := int(cand) - 1
		d := p - c - 1
		if cand == 0 || depth == 0 || d > int(e.maxDist) || d >= e.cycMask {
			son[less], son[more] = 0, 0
			break
		}
		pair := 2 * (c & e.cycMask)
		prev := e.data[c:]
		l := min(lenLess, lenMore)
		if prev[l] == cur[l] {
			l += 1 + matchLen(prev[l+1:], cur[l+1:])
			if l > best {
				best = l
				if out != nil {
					out = append(out, match{uint32(l), uint32(d)})
				}
			}
			if l == limit {
				// The same string as p's up to the limit: p takes its
				// place and its subtrees.
				son[less], son[more] = son[pair], son[pair+1]
				break
			}
		}
		if prev[l] < cur[l] {
			son[less] = cand
			less = pair + 1
			cand = son[pair+1]
			lenLess = l
		} else {
			son[more] = cand
			more = pair
			cand = son[pair]
			lenMore = l
		}
	}
	return out
}
