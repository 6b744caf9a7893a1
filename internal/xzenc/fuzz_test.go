package xzenc

import (
	"bytes"
	"io"
	"testing"

	mxz "github.com/mikelolasagasti/xz"
)

// FuzzEncode: every input round-trips through the decoder bpx reads xz
// sections with, at a small and a large dictionary, in every option set
// of optionSets, with one Encoder reused throughout.
func FuzzEncode(f *testing.F) {
	f.Add([]byte(""), uint16(0), uint8(0))
	f.Add([]byte("a"), uint16(1), uint8(1))
	f.Add(bytes.Repeat([]byte("abcabcabd"), 100), uint16(7), uint8(2))
	f.Add([]byte("the quick brown fox jumps over the lazy dog; the quick brown cat"), uint16(3), uint8(4))
	f.Add(bytes.Repeat([]byte("0123456789abcdef0123456789abcdeX"), 300), uint16(0), uint8(5))
	var e Encoder
	f.Fuzz(func(t *testing.T, data []byte, dictSel uint16, optSel uint8) {
		dict := MinDict + int(dictSel)*64
		e.Options = optionSets[int(optSel)%len(optionSets)].o
		var buf bytes.Buffer
		if err := e.Encode(&buf, data, dict); err != nil {
			t.Fatal(err)
		}
		b := dictByte(dict)
		declared := (2 | int(b)&1) << (b/2 + 11)
		r, err := mxz.NewReader(&buf, uint32(declared))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip: %d of %d bytes, %v", len(got), len(data), err)
		}
	})
}

// FuzzFinder checks Normal mode's match finders (HC4 and BT4) against
// brute force. At each position, searched or (as the parser does inside
// long matches) skipped as the fuzzer's bit mask says, the matches
// findAll returns are real (the bytes agree, within the dictionary),
// with strictly increasing lengths and distances; with a search deep
// enough to see every candidate, the longest is at least the longest
// match that brute force finds, up to NiceLen, if that is of 4 bytes or
// more (BT4) or hcHashLen bytes or more (HC4).
func FuzzFinder(f *testing.F) {
	f.Add([]byte("abcdabcdabcdeabcdabcdx"), uint8(0), uint16(8), uint64(0))
	f.Add(bytes.Repeat([]byte("ab"), 200), uint8(1), uint16(20), uint64(0x5555))
	f.Add([]byte("xyzw1234xyzw5678xyzw1234xyzw5678xyzw12"), uint8(1), uint16(1000), uint64(1<<40))
	var e Encoder
	f.Fuzz(func(t *testing.T, data []byte, sel uint8, dictSel uint16, skips uint64) {
		if len(data) > 2<<10 { // brute force is quadratic
			data = data[:2<<10]
		}
		e.Options = Options{Mode: Normal, MatchFinder: MatchFinder(sel & 1), NiceLen: 8 + int(sel>>1)%40}
		deep := sel&0x80 == 0
		promise := 4 // BT4 finds every match of 4 bytes or more
		if e.MatchFinder == HC4 {
			promise = hcHashLen // HC4, those its chain links
		}
		if deep {
			e.Depth = 1 << 16
		}
		dict := max(MinDict, int(dictSel))
		e.prepare(int64(len(data)), dict)
		e.data, e.ins = data, 0
		maxDist := min(int(dictSel), dict) // small distances limit the search below the dictionary
		e.maxDist = uint32(maxDist - 1)
		if maxDist == 0 {
			e.maxDist = 0
		}
		for p := 0; p < len(data); p++ {
			if skips>>(p%64)&1 != 0 {
				e.skipTo(p + 1)
				continue
			}
			ms := e.findAll(p)
			prev := match{}
			for _, m := range ms {
				d := int(m.dist) + 1
				if m.len <= prev.len || (prev.len != 0 && m.dist <= prev.dist) || m.len < 2 ||
					d > p || m.dist > e.maxDist || int(m.len) > len(data)-p ||
					!bytes.Equal(data[p:p+int(m.len)], data[p-d:p-d+int(m.len)]) {
					t.Fatalf("at %d: matches %v (of %d bytes, nice %d)", p, ms, len(data), e.nice)
				}
				prev = m
			}
			if !deep {
				continue
			}
			best := 0
			for c := max(0, p-int(e.maxDist)-1); c < p; c++ {
				best = max(best, matchLen(data[c:], data[p:min(len(data), p+maxMatchLen)]))
			}
			if best >= promise && (len(ms) == 0 || int(ms[len(ms)-1].len) < min(best, e.nice)) {
				t.Fatalf("at %d: matches %v, but one of %d bytes exists (nice %d)", p, ms, best, e.nice)
			}
		}
		e.data = nil
	})
}
