package xzenc

// Normal mode: optimal parsing. From a position p, the parser builds the
// cheapest way (by the prices of price.go) to reach each of the next
// positions p+1, p+2, ... as a shortest-path problem over a DAG whose
// nodes are positions and whose edges are the symbols LZMA can code
// there: a literal, a short rep, rep0..rep3 of every length, a match of
// every length the match finder offers, and two composite edges (a
// literal then rep0; a match or rep, a literal, then rep0) whose later
// symbols are priced in the state the earlier ones lead to. Nodes are
// visited in order, each relaxing the edges that leave it; the parse ends
// where no edge reaches beyond the current node (every path passes
// through it, so the path to it is final), at a match of NiceLen or more,
// or after optWindow positions. The path is then traced back and coded.

const optWindow = 1 << 12

// Edge kinds; opRep+i is rep i.
const (
	opLit uint8 = iota
	opShortRep
	opMatch
	opRep
)

// Composite edges: what follows the edge's main symbol.
const (
	tailNone    uint8 = iota
	tailRep0          // a rep0 of tailLen (after a literal)
	tailLitRep0       // a literal, then a rep0 of tailLen
)

// node is one position of a parse: the cheapest path to it found so far,
// as its price and last edge, and (once visited) the state and reps at
// its end.
type node struct {
	price   uint32
	prev    uint32 // the node the edge leaves from
	dist    uint32 // the match's 0-based distance for opMatch
	mainLen uint16 // length of the edge's main symbol
	tailLen uint16
	kind    uint8
	tail    uint8
	state   uint32
	reps    [4]uint32
}

// set makes the edge into o one symbol from node prev.
func (o *node) set(price uint32, prev int, dist uint32, kind uint8, l int) {
	o.price, o.prev, o.dist, o.kind, o.mainLen, o.tail = price, uint32(prev), dist, kind, uint16(l), tailNone
}

// op is one symbol to code: opLit, opShortRep, opMatch or opRep (any rep
// index; dist says which distance).
type op struct {
	kind uint8
	len  uint32
	dist uint32
}

// runNormal is run for Normal mode.
func (e *Encoder) runNormal(final bool) {
	n := len(e.data)
	stop := n
	if !final {
		stop = n - lookahead
	}
	p := e.pos
	for p < stop && e.err == nil {
		for _, o := range e.optimum(p, stop) {
			e.emitOp(p, o)
			p += int(o.len)
			if e.rc.pending() >= chunkLimit || p-e.start+maxMatchLen > chunkMaxUnpkd {
				e.flushChunk(p)
			}
		}
	}
	e.pos = p
	if !final {
		return
	}
	if e.err == nil && n > e.start {
		e.flushChunk(n)
	}
	e.write([]byte{0}) // end of LZMA2 data
}

// emitOp codes o at p. The parse chose rep indexes and short reps for
// the model's state at its start; a stored chunk between (which resets
// the model) makes them stale, so reps are looked up by distance.
func (e *Encoder) emitOp(p int, o op) {
	m := &e.m
	switch o.kind {
	case opLit:
		e.emitLiteral(p)
	case opShortRep:
		if m.reps[0] != o.dist {
			e.emitLiteral(p)
			return
		}
		m.encodeShortRep(&e.rc, uint32(p))
	case opMatch:
		m.encodeMatch(&e.rc, uint32(p), o.dist, o.len)
		e.pr.distUses++
		if o.dist >= fullDistances {
			e.pr.alignUses++
		}
		e.pr.matchLen.uses++
	default:
		for i, d := range m.reps {
			if d == o.dist {
				m.encodeRep(&e.rc, uint32(p), uint32(i), o.len)
				e.pr.repLen.uses++
				return
			}
		}
		m.encodeMatch(&e.rc, uint32(p), o.dist, o.len)
	}
}

// refreshPrices recomputes the cached prices that are stale.
func (e *Encoder) refreshPrices() {
	fresh := e.pricesFresh
	e.pricesFresh = true
	if !fresh || e.pr.matchLen.uses >= refreshLen {
		e.pr.matchLen.refresh(&e.m.matchLen, e.nice)
	}
	if !fresh || e.pr.repLen.uses >= refreshLen {
		e.pr.repLen.refresh(&e.m.repLen, e.nice)
	}
	if !fresh || e.pr.distUses >= refreshDist {
		e.pr.refreshDist(&e.m)
	}
	if !fresh || e.pr.alignUses >= 1<<alignBits {
		e.pr.refreshAlign(&e.m)
	}
}

// matchByte returns the byte at 0-based distance d before p, and whether
// there is one.
func (e *Encoder) matchByte(p int, d uint32) (byte, bool) {
	if int(d) < p {
		return e.data[p-int(d)-1], true
	}
	return 0, false
}

// optimum parses from p and returns the symbols to code, in e.ops. The
// match finder has inserted every position before p and none after.
// Searched positions end before stop.
func (e *Encoder) optimum(p, stop int) []op {
	e.refreshPrices()
	m, pr := &e.m, &e.pr
	data := e.data
	n := len(data)
	nice := e.nice
	avail := min(n-p, maxMatchLen)
	ops := e.ops[:0]

	var ms []match
	if e.savedPos == p {
		ms = e.saved
		e.savedPos = -1
	} else {
		ms = e.findAll(p)
	}
	if avail < 2 {
		e.ops = append(ops, op{kind: opLit, len: 1})
		return e.ops
	}
	var repLens [4]int
	bestRep := 0
	for i, d := range m.reps {
		repLens[i] = e.repLen(p, d, avail)
		if repLens[i] > repLens[bestRep] {
			bestRep = i
		}
	}
	if l := repLens[bestRep]; l >= nice {
		e.skipTo(p + l)
		e.ops = append(ops, op{kind: opRep, len: uint32(l), dist: m.reps[bestRep]})
		return e.ops
	}
	mainLen := 0
	if len(ms) > 0 {
		mainLen = int(ms[len(ms)-1].len)
	}
	if mainLen >= nice {
		mm := ms[len(ms)-1]
		e.skipTo(p + mainLen)
		e.ops = append(ops, op{kind: opMatch, len: mm.len, dist: mm.dist})
		return e.ops
	}
	c0 := data[p]
	mb, hasMB := e.matchByte(p, m.reps[0])
	shortRepOK := hasMB && mb == c0
	if mainLen < 2 && repLens[bestRep] < 2 && !shortRepOK {
		e.ops = append(ops, op{kind: opLit, len: 1})
		return e.ops
	}

	opt := e.opt[:optWindow+1]
	opt[0] = node{state: m.state, reps: m.reps}
	var prev byte
	if p > 0 {
		prev = data[p-1]
	}
	ps := uint32(p) & posMask
	s := m.state
	matchP := price1(m.isMatch[s][ps])
	repMatchP := matchP + price1(m.isRep[s])
	opt[1] = node{price: price0(m.isMatch[s][ps]) + m.literalPrice(prev, c0, mb, s >= 7), kind: opLit, mainLen: 1}
	if shortRepOK {
		if pc := repMatchP + price0(m.isRepG0[s]) + price0(m.isRep0Long[s][ps]); pc < opt[1].price {
			opt[1] = node{price: pc, kind: opShortRep, mainLen: 1}
		}
	}
	lenEnd := max(mainLen, repLens[bestRep], 1)
	for i := 2; i <= lenEnd; i++ {
		opt[i].price = infinite
	}
	for i, l := range repLens {
		if l < 2 {
			continue
		}
		base := repMatchP + m.repPrice(i, s, ps)
		lp := &pr.repLen.p[ps]
		for ; l >= 2; l-- {
			if pc := base + lp[l-minMatchLen]; pc < opt[l].price {
				opt[l] = node{price: pc, kind: opRep + uint8(i), mainLen: uint16(l)}
			}
		}
	}
	if start := max(repLens[0]+1, 2); start <= mainLen {
		e.relaxMatches(opt, 0, start, ms, matchP+price0(m.isRep[s]), ps)
	}

	cur := 1
	for ; cur < lenEnd; cur++ {
		q := p + cur
		if q >= stop || cur >= optWindow-1 {
			break
		}
		nd := &opt[cur]
		e.settle(nd)
		ms = e.findAll(q)
		if len(ms) > 0 && int(ms[len(ms)-1].len) >= nice {
			e.saved = append(e.saved[:0], ms...)
			e.savedPos = q
			break
		}
		s, reps, curPrice := nd.state, nd.reps, nd.price
		ps := uint32(q) & posMask
		c0 := data[q]
		mb, _ := e.matchByte(q, reps[0]) // reps[0] < q on every path
		litP := curPrice + price0(m.isMatch[s][ps]) + m.literalPrice(data[q-1], c0, mb, s >= 7)
		next := &opt[cur+1]
		nextIsLit := false
		if litP < next.price {
			*next = node{price: litP, prev: uint32(cur), kind: opLit, mainLen: 1}
			nextIsLit = true
		}
		matchP := curPrice + price1(m.isMatch[s][ps])
		repMatchP := matchP + price1(m.isRep[s])
		if mb == c0 && !(next.prev == uint32(cur) && next.kind == opShortRep) {
			if pc := repMatchP + price0(m.isRepG0[s]) + price0(m.isRep0Long[s][ps]); pc <= next.price {
				*next = node{price: pc, prev: uint32(cur), kind: opShortRep, mainLen: 1}
				nextIsLit = false
			}
		}
		availFull := min(n-q, optWindow-cur, maxMatchLen)
		if availFull < 2 {
			continue
		}
		avail := min(availFull, nice)

		// A literal, then rep0.
		if !nextIsLit && mb != c0 && availFull >= 3 {
			sl := litNext(s)
			if l := e.repLen(q+1, reps[0], min(availFull-1, nice)); l >= 2 {
				ps1 := uint32(q+1) & posMask
				pc := litP + price1(m.isMatch[sl][ps1]) + price1(m.isRep[sl]) + m.repPrice(0, sl, ps1) + pr.repLen.p[ps1][l-minMatchLen]
				end := cur + 1 + l
				for ; lenEnd < end; lenEnd++ {
					opt[lenEnd+1].price = infinite
				}
				if pc < opt[end].price {
					opt[end] = node{price: pc, prev: uint32(cur), kind: opLit, mainLen: 1, tail: tailRep0, tailLen: uint16(l)}
				}
			}
		}

		start := 2
		for i, d := range reps {
			l := e.repLen(q, d, avail)
			if l < 2 {
				continue
			}
			for ; lenEnd < cur+l; lenEnd++ {
				opt[lenEnd+1].price = infinite
			}
			base := repMatchP + m.repPrice(i, s, ps)
			lp := &pr.repLen.p[ps]
			for k := l; k >= 2; k-- {
				if pc := base + lp[k-minMatchLen]; pc < opt[cur+k].price {
					opt[cur+k].set(pc, cur, 0, opRep+uint8(i), k)
				}
			}
			if i == 0 {
				start = l + 1
			}
			// The rep, a literal, then rep0 again.
			e.relaxTail(opt, &lenEnd, cur, q, l, d, base+lp[l-minMatchLen], repNext(s), availFull, opRep+uint8(i))
		}

		// Matches, cut to avail.
		for k := range ms {
			if int(ms[k].len) >= avail {
				ms[k].len = uint32(avail)
				ms = ms[:k+1]
				break
			}
		}
		if len(ms) == 0 {
			continue
		}
		if newLen := int(ms[len(ms)-1].len); newLen >= start {
			for ; lenEnd < cur+newLen; lenEnd++ {
				opt[lenEnd+1].price = infinite
			}
			e.relaxMatches(opt, cur, start, ms, matchP+price0(m.isRep[s]), ps)
			// Each match, a literal, then rep0.
			for _, mm := range ms {
				if l := int(mm.len); l >= start {
					pc := matchP + price0(m.isRep[s]) + pr.matchLen.p[ps][l-minMatchLen] + pr.distPrice(mm.dist, l)
					e.relaxTail(opt, &lenEnd, cur, q, l, mm.dist, pc, matchNext(s), availFull, opMatch)
				}
			}
		}
	}
	e.ops = e.backtrack(opt, cur, p)
	return e.ops
}

// relaxMatches relaxes the match edges from node cur for lengths start
// and up: each length at the nearest distance that reaches it. normalP
// is the price of the node plus isMatch and isRep.
func (e *Encoder) relaxMatches(opt []node, cur, start int, ms []match, normalP uint32, ps uint32) {
	lp := e.pr.matchLen.p[ps][:]
	l := start
	for _, mm := range ms {
		ml := int(mm.len)
		if ml < l {
			continue
		}
		for ; l < lenToPosStates+1 && l <= ml; l++ {
			pc := normalP + e.pr.distPrice(mm.dist, l) + lp[l-minMatchLen]
			if o := &opt[cur+l]; pc < o.price {
				o.set(pc, cur, mm.dist, opMatch, l)
			}
		}
		if l > ml {
			continue
		}
		far := normalP + e.pr.distPrice(mm.dist, lenToPosStates+1)
		nodes := opt[cur+l : cur+ml+1]
		lens := lp[l-minMatchLen : ml-minMatchLen+1]
		for i := range nodes {
			if pc := far + lens[i]; pc < nodes[i].price {
				nodes[i].set(pc, cur, mm.dist, opMatch, l+i)
			}
		}
		l = ml + 1
	}
}

// relaxTail relaxes the edge from node cur (at position q) of a match or
// rep of length l at distance d (price pc, leading to state s), then a
// literal, then rep0 at d.
func (e *Encoder) relaxTail(opt []node, lenEnd *int, cur, q, l int, d, pc, s uint32, availFull int, kind uint8) {
	if l+3 > availFull {
		return
	}
	data := e.data
	ql := q + l // the literal's position; data[ql] differs from the byte at d unless l was cut
	t := e.repLen(ql+1, d, min(availFull-l-1, e.nice))
	if t < 2 {
		return
	}
	m := &e.m
	ps := uint32(ql) & posMask
	pc += price0(m.isMatch[s][ps]) + m.literalPrice(data[ql-1], data[ql], data[ql-int(d)-1], true)
	s = litNext(s)
	ps = (ps + 1) & posMask
	pc += price1(m.isMatch[s][ps]) + price1(m.isRep[s]) + m.repPrice(0, s, ps) + e.pr.repLen.p[ps][t-minMatchLen]
	end := cur + l + 1 + t
	for ; *lenEnd < end; *lenEnd++ {
		opt[*lenEnd+1].price = infinite
	}
	if pc < opt[end].price {
		opt[end] = node{price: pc, prev: uint32(cur), dist: d, kind: kind, mainLen: uint16(l), tail: tailLitRep0, tailLen: uint16(t)}
	}
}

// settle sets the state and reps at the end of nd's path.
func (e *Encoder) settle(nd *node) {
	from := &e.opt[nd.prev]
	s, reps := from.state, from.reps
	switch k := nd.kind; {
	case k == opLit:
		s = litNext(s)
	case k == opShortRep:
		s = shortRepNext(s)
	case k == opMatch:
		reps = [4]uint32{nd.dist, reps[0], reps[1], reps[2]}
		s = matchNext(s)
	default:
		i := k - opRep
		d := reps[i]
		copy(reps[1:i+1], reps[:i])
		reps[0] = d
		s = repNext(s)
	}
	switch nd.tail {
	case tailRep0:
		s = repNext(s)
	case tailLitRep0:
		s = repNext(litNext(s))
	}
	nd.state, nd.reps = s, reps
}

// backtrack returns the symbols of the path to node end, in order, the
// parse having started at position p.
func (e *Encoder) backtrack(opt []node, end, p int) []op {
	ops := e.ops[:0]
	// Collect the symbols from the end, then reverse them.
	for i := end; i > 0; {
		nd := &opt[i]
		from := &opt[nd.prev]
		switch nd.tail {
		case tailRep0:
			ops = append(ops, op{kind: opRep, len: uint32(nd.tailLen), dist: from.reps[0]})
		case tailLitRep0:
			d := nd.dist
			if nd.kind != opMatch {
				d = from.reps[nd.kind-opRep]
			}
			ops = append(ops, op{kind: opRep, len: uint32(nd.tailLen), dist: d}, op{kind: opLit, len: 1})
		}
		o := op{kind: nd.kind, len: uint32(nd.mainLen), dist: nd.dist}
		switch {
		case nd.kind == opShortRep:
			o.dist = from.reps[0]
		case nd.kind >= opRep:
			o.dist = from.reps[nd.kind-opRep]
			o.kind = opRep
		}
		ops = append(ops, o)
		i = int(nd.prev)
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}
