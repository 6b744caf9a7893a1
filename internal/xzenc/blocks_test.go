package xzenc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/internal/xzdec"
)

// blockRecords returns the index records of the .xz stream z: each
// block's unpadded size and data size, read from its end as a reader that
// starts at a block does.
func blockRecords(t *testing.T, z []byte) []record {
	t.Helper()
	f := z[len(z)-12:]
	back := (int(binary.LittleEndian.Uint32(f[4:])) + 1) * 4
	idx := z[len(z)-12-back : len(z)-12]
	if idx[0] != 0 || binary.LittleEndian.Uint32(idx[len(idx)-4:]) != crc32.ChecksumIEEE(idx[:len(idx)-4]) {
		t.Fatalf("index %x is not an index", idx)
	}
	p := idx[1:]
	n, k := binary.Uvarint(p)
	p = p[k:]
	recs := make([]record, n)
	for i := range recs {
		recs[i].unpadded, k = binary.Uvarint(p)
		p = p[k:]
		recs[i].usize, k = binary.Uvarint(p)
		p = p[k:]
	}
	return recs
}

// oneBlock returns block i of z as a stream of its own: z's stream
// header, the block, an index of its one record and a footer.
func oneBlock(z []byte, recs []record, i int) []byte {
	off := uint64(12)
	for _, r := range recs[:i] {
		off += (r.unpadded + 3) &^ 3
	}
	r := recs[i]
	s := append([]byte(nil), z[:12]...)
	s = append(s, z[off:off+(r.unpadded+3)&^3]...)
	idx := []byte{0, 1}
	idx = binary.AppendUvarint(idx, r.unpadded)
	idx = binary.AppendUvarint(idx, r.usize)
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	s = append(s, idx...)
	var f [12]byte
	binary.LittleEndian.PutUint32(f[4:], uint32(len(idx)/4-1))
	copy(f[8:], streamFlags)
	binary.LittleEndian.PutUint32(f[0:], crc32.ChecksumIEEE(f[4:10]))
	copy(f[10:], footerMagic)
	return append(s, f[:]...)
}

// TestBlocks: with BlockSize set, a stream is cut into blocks of that
// much data (the last one shorter, none empty), every decoder reads it,
// each block decodes on its own (nothing refers back across a block's
// start), writing in pieces gives Encode's bytes, and a BlockSize the
// data fits in changes nothing.
func TestBlocks(t *testing.T) {
	const bs = 64 << 10
	src := gocorpus.Source(4*bs + 5)
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, bs)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	mixed := append(append([]byte(nil), src[:bs+100]...), random...)
	mixed = append(mixed, src[:bs]...) // repeats the first block: a match back would be long
	inputs := map[string][]byte{"empty": nil, "one byte": src[:1], "just under": src[:bs-1], "one block": src[:bs],
		"just over": src[:bs+1], "source": src, "mixed": mixed}
	for _, opts := range []Options{PresetFast, PresetDefault} {
		var e, w Encoder
		for name, data := range inputs {
			what := fmt.Sprintf("%s, mode %d", name, opts.Mode)
			e.Options, w.Options = opts, opts
			e.BlockSize, w.BlockSize = bs, bs
			z := encode(t, &e, data, 1<<20)
			decodeAll(t, z, data, 1<<20, what)
			recs := blockRecords(t, z)
			want := max(1, (len(data)+bs-1)/bs)
			if len(recs) != want {
				t.Fatalf("%s: %d blocks, want %d", what, len(recs), want)
			}
			for i, r := range recs {
				lo, hi := i*bs, min(len(data), (i+1)*bs)
				if r.usize != uint64(hi-lo) {
					t.Fatalf("%s: block %d holds %d bytes, want %d", what, i, r.usize, hi-lo)
				}
				var d xzdec.Decoder
				if got, err := d.Decode(nil, oneBlock(z, recs, i), bs); err != nil || !bytes.Equal(got, data[lo:hi]) {
					t.Fatalf("%s: block %d alone: %d bytes, %v", what, i, len(got), err)
				}
			}
			for _, piece := range []int{1 << 30, 4093, bs} {
				if got := writeStream(t, &w, data, 1<<20, int64(len(data)), piece); !bytes.Equal(got, z) {
					t.Fatalf("%s: Write in pieces of %d: %d bytes differ from Encode's %d", what, piece, len(got), len(z))
				}
			}
			e.BlockSize = int64(len(data))
			whole := encode(t, &e, data, 1<<20)
			e.BlockSize = 0
			if one := encode(t, &e, data, 1<<20); !bytes.Equal(whole, one) {
				t.Fatalf("%s: BlockSize of the data's size changes the stream", what)
			}
		}
	}
	if err := (Options{BlockSize: -1}).Validate(); err == nil {
		t.Error("a negative BlockSize is valid")
	}
}

// TestEndBlock: EndBlock cuts a block where the data written so far ends,
// besides BlockSize's cuts; each block decodes on its own, and an EndBlock
// on an empty block (twice in a row, at the start) cuts nothing.
func TestEndBlock(t *testing.T) {
	data := gocorpus.Source(300 << 10)
	for _, bs := range []int64{0, 128 << 10} {
		var e Encoder
		e.Options, e.BlockSize = PresetDefault, bs
		var buf bytes.Buffer
		if err := e.Reset(&buf, 1<<20, int64(len(data))); err != nil {
			t.Fatal(err)
		}
		e.EndBlock()
		cuts := []int{10_000, 50_000, 50_000, 200_000}
		at := 0
		for _, c := range cuts {
			e.Write(data[at:c])
			e.EndBlock()
			at = c
		}
		e.Write(data[at:])
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		z := buf.Bytes()
		decodeAll(t, z, data, 1<<20, fmt.Sprintf("EndBlock, BlockSize %d", bs))
		var want []int // block sizes
		prev := 0
		for _, c := range append([]int{10_000, 50_000, 200_000}, len(data)) {
			for bs > 0 && c-prev > int(bs) {
				want = append(want, int(bs))
				prev += int(bs)
			}
			want = append(want, c-prev)
			prev = c
		}
		recs := blockRecords(t, z)
		var got []int
		lo := 0
		for i, r := range recs {
			got = append(got, int(r.usize))
			var d xzdec.Decoder
			if b, err := d.Decode(nil, oneBlock(z, recs, i), 1<<20); err != nil || !bytes.Equal(b, data[lo:lo+int(r.usize)]) {
				t.Fatalf("BlockSize %d: block %d alone: %v", bs, i, err)
			}
			lo += int(r.usize)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("BlockSize %d: blocks %v, want %v", bs, got, want)
		}
	}
}
