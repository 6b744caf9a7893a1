package blk

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// bbfLenBytes is the engine's encode_len: 1, 2 or 3 big-endian bytes.
func bbfLenBytes(n int) []byte {
	switch {
	case n < 0x80:
		return []byte{byte(n)}
	case n < 0x4000:
		return []byte{0x80 | byte(n>>8), byte(n)}
	}
	return []byte{0xC0 | byte(n>>16), byte(n >> 8), byte(n)}
}

func bbfCountBytes(n int) (int, []byte) {
	switch {
	case n >= 0x10000:
		return 3, binary.LittleEndian.AppendUint32(nil, uint32(n))
	case n >= 0x100:
		return 2, binary.LittleEndian.AppendUint16(nil, uint16(n))
	case n > 0:
		return 1, []byte{byte(n)}
	}
	return 0, nil
}

// writeBBF3 is a test-only BBF3 writer that follows the engine's reader
// (blk_readBBF3.cpp): a hashed name map with 256 buckets, a string table,
// then the recursive blocks.
func writeBBF3(root *Block) []byte {
	const buckets = 256
	ids := map[string]uint32{}
	perBucket := map[uint32]uint32{}
	var names []string
	strIdx := map[string]uint32{}
	var strs []string
	var walk func(b *Block, top bool)
	walk = func(b *Block, top bool) {
		add := func(n string) {
			if _, ok := ids[n]; !ok {
				h := bbfHash(n) % buckets
				ids[n] = perBucket[h]*buckets + h
				perBucket[h]++
				names = append(names, n)
			}
		}
		if !top {
			add(b.Name)
		}
		for _, p := range b.Params {
			add(p.Name)
			if p.Value.typ == TypeString {
				if _, ok := strIdx[p.Value.s]; !ok {
					strIdx[p.Value.s] = uint32(len(strs))
					strs = append(strs, p.Value.s)
				}
			}
		}
		for _, c := range b.Blocks {
			walk(c, false)
		}
	}
	walk(root, true)

	var body []byte
	pk, cnt := bbfCountBytes(len(names))
	body = binary.LittleEndian.AppendUint16(body, uint16(pk<<14|buckets))
	body = append(body, cnt...)
	for _, n := range names {
		body = append(append(body, bbfLenBytes(len(n))...), n...)
	}
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	var sdata []byte
	for _, s := range strs {
		sdata = append(append(sdata, bbfLenBytes(len(s))...), s...)
	}
	if len(strs) == 0 {
		body = append(body, 0, 0, 0, 0)
	} else {
		pk, cnt := bbfCountBytes(len(strs))
		body = binary.LittleEndian.AppendUint32(body, uint32(pk)<<30|uint32(len(sdata)))
		body = append(append(body, cnt...), sdata...)
		for (len(sdata)+len(cnt))%4 != 0 {
			sdata = append(sdata, 0)
			body = append(body, 0)
		}
	}
	var block func(b *Block)
	block = func(b *Block) {
		body = binary.LittleEndian.AppendUint16(body, uint16(len(b.Params)))
		body = binary.LittleEndian.AppendUint16(body, uint16(len(b.Blocks)))
		for _, p := range b.Params {
			hdr := ids[p.Name] | uint32(p.Value.typ)<<24
			if p.Value.typ == TypeBool && p.Value.Bool() {
				hdr |= 0x80000000
			}
			body = binary.LittleEndian.AppendUint32(body, hdr)
		}
		for _, p := range b.Params {
			v := p.Value
			switch v.typ {
			case TypeBool:
			case TypeString:
				body = binary.LittleEndian.AppendUint32(body, strIdx[v.s])
			case TypeColor:
				c := v.Color()
				body = binary.LittleEndian.AppendUint32(body, uint32(c.R)<<24|uint32(c.G)<<16|uint32(c.B)<<8|uint32(c.A))
			default:
				w, n := v.raw()
				for _, x := range w[:n] {
					body = binary.LittleEndian.AppendUint32(body, x)
				}
			}
		}
		for _, c := range b.Blocks {
			body = binary.LittleEndian.AppendUint32(body, ids[c.Name])
			block(c)
		}
	}
	block(root)
	out := []byte("\x00BBF\x03\x00\x00\x00")
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...)
}

// bbfTree is a tree BBF3 can hold (no ipoint4), with more than 255 names
// and strings and strings needing 2- and 3-byte lengths.
func bbfTree() *Block {
	root := genTree(3, genOptions{blocks: 30, params: 5, oddNames: true, nanBits: true, maxDepth: 4})
	var strip func(b *Block)
	strip = func(b *Block) {
		ps := b.Params[:0]
		for _, p := range b.Params {
			if p.Value.typ != TypeIPoint4 && p.Name != "" {
				ps = append(ps, p)
			}
		}
		b.Params = ps
		for _, c := range b.Blocks {
			strip(c)
		}
	}
	strip(root)
	many := root.AddBlock("many")
	for i := 0; i < 300; i++ {
		many.Add(fmt.Sprintf("name%d", i), Str(fmt.Sprintf("value %d", i)))
	}
	many.Add("long", Str(strings.Repeat("x", 200))).Add("longer", Str(strings.Repeat("y", 20000)))
	return root
}

func TestDecodeBBF3Generated(t *testing.T) {
	tree := bbfTree()
	data := writeBBF3(tree)
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, tree)
	// Every truncation fails, and so does a body size that is one off.
	for n := 0; n < len(data); n += 7 {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	bad := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(bad[8:], uint32(len(data)-13))
	if _, err := Decode(bad); err == nil {
		t.Fatal("short body size accepted")
	}
}

func TestDecodeBBF3Malformed(t *testing.T) {
	bbf := readSample(t, "section_bbf.blk")
	for _, tc := range []struct {
		name string
		edit func(b []byte)
		what string
	}{
		{"buckets not a power of 2", func(b []byte) { b[12] = 3 }, "power of 2"},
		{"param type", func(b []byte) { b[0x73] = 0x0D }, "type 0x0d not supported"},
		{"param name id", func(b []byte) { b[0x70] = 0xEE }, "not in the name map"},
		{"string index", func(b []byte) { b[0xac] = 9 }, "string index 9"},
		{"block name id", func(b []byte) { b[0x98] = 0xEE }, "block name id"},
	} {
		data := append([]byte(nil), bbf...)
		tc.edit(data)
		_, err := Decode(data)
		if err == nil || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.what)
		}
	}
}
