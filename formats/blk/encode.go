package blk

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Encoder writes binary BLK files with DagorEngine's writer rules
// (DataBlock::saveToBinStreamWithoutNames):
//   - the name table holds, in depth-first order, each block's name then
//     its params' names (for SLIM kinds: only the names missing from the
//     shared name map, stored as local names);
//   - blocks are numbered breadth-first, params follow the block order;
//   - string values come first in the payload: a string equal to a name
//     becomes a tagged name reference, any other is appended with its NUL;
//   - then, once, zero padding to a multiple of 4, then the wide values;
//   - every payload append is de-duplicated on the whole value.
//
// NewEncoder makes one for a kind and Options. An Encoder may be reused
// (it keeps its zstd encoder); it is not safe for concurrent use.
type Encoder struct {
	kind           Kind
	nameMap        *NameMap
	dict           []byte
	level          zstd.EncoderLevel // 0: zstd.SpeedBestCompression
	internStrings  bool
	packLikeEngine bool

	nmIndex map[string]int
	nmFor   *NameMap
	zenc    *zstd.Encoder // cached for zlevel and zdict
	zlevel  zstd.EncoderLevel
	zdict   []byte
}

// compress compresses src as one zstd frame, reusing the encoder.
func (e *Encoder) compress(src, dict []byte) ([]byte, error) {
	level := e.level
	if level == 0 {
		level = zstd.SpeedBestCompression
	}
	if e.zenc == nil || e.zlevel != level || !sameBytes(e.zdict, dict) {
		z, err := newZstdEncoder(dict, level)
		if err != nil {
			return nil, err
		}
		e.zenc, e.zlevel, e.zdict = z, level, dict
	}
	return e.zenc.EncodeAll(src, nil), nil
}

// sameBytes reports whether a and b are the same slice (not just equal).
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// NewEncoder returns an Encoder that writes kind: KindFAT, KindFATZstd,
// KindSlim, KindSlimZstd or KindSlimZstdDict. The SLIM kinds need
// WithNameMap, KindSlimZstdDict also WithDicts; WithLevel, InternStrings
// and PackLikeEngine tune the output. Another kind, or an option out of
// range, is an error.
func NewEncoder(kind Kind, opts ...Option) (*Encoder, error) {
	var c config
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	switch kind {
	case KindFAT, KindFATZstd:
	case KindSlim, KindSlimZstd, KindSlimZstdDict:
		if c.nameMap == nil {
			return nil, fmt.Errorf("%w to write %v", ErrNameMapRequired, kind)
		}
		if kind == KindSlimZstdDict && len(c.dicts) == 0 {
			return nil, fmt.Errorf("%w to write %v", ErrDictRequired, kind)
		}
	default:
		return nil, fmt.Errorf("%w: writing kind %v", ErrUnsupported, kind)
	}
	e := &Encoder{kind: kind, nameMap: c.nameMap, level: c.level, internStrings: c.internStrings, packLikeEngine: c.packLikeEngine}
	if len(c.dicts) > 0 {
		e.dict = c.dicts[0]
	}
	return e, nil
}

// Encode writes b as a FAT (KindFAT) or FAT_ZST (KindFATZstd) file.
func Encode(b *Block, kind Kind) ([]byte, error) {
	if kind != KindFAT && kind != KindFATZstd {
		return nil, fmt.Errorf("%w: Encode writes FAT kinds, not %v (use NewEncoder)", ErrUnsupported, kind)
	}
	e := Encoder{kind: kind}
	return e.Encode(b)
}

// Encode writes b in the Encoder's kind. A root with a name keeps it, as when the
// engine saves a sub-block to a file.
func (e *Encoder) Encode(b *Block) ([]byte, error) {
	var shared []string
	var sharedIdx map[string]int
	switch e.kind {
	case KindFAT, KindFATZstd:
	case KindSlim, KindSlimZstd, KindSlimZstdDict:
		if e.nameMap == nil {
			return nil, fmt.Errorf("%w to write %v", ErrNameMapRequired, e.kind)
		}
		if e.kind == KindSlimZstdDict && e.dict == nil {
			return nil, fmt.Errorf("%w to write %v", ErrDictRequired, e.kind)
		}
		if e.nmFor != e.nameMap || len(e.nmIndex) == 0 && len(e.nameMap.Names) > 0 {
			e.nmIndex, e.nmFor = e.nameMap.index(), e.nameMap
		}
		shared, sharedIdx = e.nameMap.Names, e.nmIndex
	default:
		return nil, fmt.Errorf("%w: writing kind %v", ErrUnsupported, e.kind)
	}
	body, err := encodeBody(b, shared, sharedIdx, e.internStrings)
	if err != nil {
		return nil, err
	}
	switch e.kind {
	case KindFAT, KindSlim:
		return append([]byte{byte(e.kind)}, body...), nil
	case KindFATZstd:
		z, err := e.compress(append([]byte{byte(KindFAT)}, body...), nil)
		if err != nil {
			return nil, err
		}
		if len(z) >= 1<<24 {
			return nil, encodeErrf("FAT_ZST frame of %d bytes does not fit the 24-bit length", len(z))
		}
		return append([]byte{byte(KindFATZstd), byte(len(z)), byte(len(z) >> 8), byte(len(z) >> 16)}, z...), nil
	}
	var dict []byte
	if e.kind == KindSlimZstdDict {
		dict = e.dict
	}
	z, err := e.compress(body, dict)
	if err != nil {
		return nil, err
	}
	if e.packLikeEngine && len(body) < 128 && len(z) > len(body) {
		return append([]byte{byte(KindSlim)}, body...), nil
	}
	return append([]byte{byte(e.kind)}, z...), nil
}

// nameTable assigns name ids: shared ones first, then local ones.
type nameTable struct {
	shared map[string]int
	nShare int
	local  []string
	idx    map[string]int // local name -> id
}

func (t *nameTable) add(name string) {
	if _, ok := t.shared[name]; ok {
		return
	}
	if _, ok := t.idx[name]; ok {
		return
	}
	t.idx[name] = t.nShare + len(t.local)
	t.local = append(t.local, name)
}

func (t *nameTable) id(name string) (int, bool) {
	if id, ok := t.shared[name]; ok {
		return id, true
	}
	id, ok := t.idx[name]
	return id, ok
}

// payload is the engine's ComplexDataContainer: an append-only buffer
// whose appends are de-duplicated on the whole value. Values are found by
// a hash of their bytes, checked against the buffer; the rare values whose
// hash collides with a different value go to a map keyed by the bytes.
type payload struct {
	data  []byte
	seed  maphash.Seed
	byKey map[uint64]span
	other map[string]uint32
}

type span struct{ off, n uint32 }

func newPayload() *payload {
	return &payload{seed: maphash.MakeSeed(), byKey: map[uint64]span{}, other: map[string]uint32{}}
}

func (p *payload) add(v []byte) uint32 {
	h := maphash.Bytes(p.seed, v)
	if sp, ok := p.byKey[h]; ok {
		if int(sp.n) == len(v) && string(p.data[sp.off:sp.off+sp.n]) == string(v) {
			return sp.off
		}
		if off, ok := p.other[string(v)]; ok {
			return off
		}
		off := uint32(len(p.data))
		p.data = append(p.data, v...)
		p.other[string(v)] = off
		return off
	}
	off := uint32(len(p.data))
	p.data = append(p.data, v...)
	p.byKey[h] = span{off, uint32(len(v))}
	return off
}

func checkName(kind, name string) error {
	if strings.IndexByte(name, 0) >= 0 {
		return encodeErrf("%s name %q contains a NUL byte", kind, name)
	}
	return nil
}

// encodeBody writes the body (without kind byte) of b.
func encodeBody(root *Block, shared []string, sharedIdx map[string]int, intern bool) ([]byte, error) {
	names := &nameTable{shared: sharedIdx, nShare: len(shared), idx: map[string]int{}}
	// Depth-first: each block's name, then its params' names.
	var walk func(b *Block, depth int) error
	walk = func(b *Block, depth int) error {
		if depth > MaxDepth {
			return encodeErrf("blocks nested deeper than %d", MaxDepth)
		}
		if len(b.Params) > maxBlockEntries || len(b.Blocks) > maxBlockEntries {
			return encodeErrf("block %q has %d params and %d blocks (max %d each)", b.Name, len(b.Params), len(b.Blocks), maxBlockEntries)
		}
		if b.Name != "" { // the root's too: the engine keeps it
			if err := checkName("block", b.Name); err != nil {
				return err
			}
			names.add(b.Name)
		}
		for i := range b.Params {
			p := &b.Params[i]
			if err := checkName("param", p.Name); err != nil {
				return err
			}
			if !p.Value.typ.Valid() {
				return encodeErrf("param %q has the invalid type %d", p.Name, p.Value.typ)
			}
			if p.Value.typ == TypeString && strings.IndexByte(p.Value.s, 0) >= 0 {
				return encodeErrf("string value of %q contains a NUL byte", p.Name)
			}
			names.add(p.Name)
		}
		for _, c := range b.Blocks {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, 0); err != nil {
		return nil, err
	}
	// Breadth-first block order.
	bfs := []*Block{root}
	nParams := 0
	for i := 0; i < len(bfs); i++ {
		bfs = append(bfs, bfs[i].Blocks...)
		nParams += len(bfs[i].Params)
	}
	if intern {
		for _, b := range bfs {
			for _, p := range b.Params {
				if p.Value.typ == TypeString {
					names.add(p.Value.s)
				}
			}
		}
	}
	if names.nShare+len(names.local) > 1<<24 {
		return nil, encodeErrf("%d names exceed the 24-bit name ids", names.nShare+len(names.local))
	}

	recs := make([]byte, nParams*8)
	pay := newPayload()
	// Strings first.
	var tmp []byte
	k := 0
	for _, b := range bfs {
		for i := range b.Params {
			p := &b.Params[i]
			rec := recs[k*8 : k*8+8]
			k++
			id, _ := names.id(p.Name)
			rec[0], rec[1], rec[2], rec[3] = byte(id), byte(id>>8), byte(id>>16), byte(p.Value.typ)
			if p.Value.typ != TypeString {
				continue
			}
			var v uint32
			if sid, ok := names.id(p.Value.s); ok {
				v = uint32(sid) | 0x80000000
			} else {
				tmp = append(append(tmp[:0], p.Value.s...), 0)
				v = pay.add(tmp)
			}
			binary.LittleEndian.PutUint32(rec[4:], v)
		}
	}
	// One alignment, then the wide values.
	aligned := false
	k = 0
	for _, b := range bfs {
		for i := range b.Params {
			v := &b.Params[i].Value
			rec := recs[k*8 : k*8+8]
			k++
			switch {
			case v.typ == TypeString:
				continue
			case v.typ.inline():
				w := v.w[0]
				if v.typ == TypeBool && w != 0 {
					w = 1
				}
				binary.LittleEndian.PutUint32(rec[4:], w)
				continue
			}
			if !aligned {
				for len(pay.data)%4 != 0 {
					pay.data = append(pay.data, 0)
				}
				aligned = true
			}
			tmp = tmp[:0]
			w, n := v.raw()
			for _, x := range w[:n] {
				tmp = binary.LittleEndian.AppendUint32(tmp, x)
			}
			binary.LittleEndian.PutUint32(rec[4:], pay.add(tmp))
		}
	}
	if int64(len(pay.data)) >= 1<<31 {
		return nil, encodeErrf("payload of %d bytes exceeds 2 GiB", len(pay.data))
	}

	if err := checkNamesSize(names.local, MaxNamesSize); err != nil {
		return nil, err
	}
	out := appendNames(nil, names.local)
	out = appendULEB(out, uint32(len(bfs)))
	out = appendULEB(out, uint32(nParams))
	out = appendULEB(out, uint32(len(pay.data)))
	out = append(out, pay.data...)
	out = append(out, recs...)
	next := uint32(1)
	for _, b := range bfs {
		var name1 uint32
		if b.Name != "" {
			id, _ := names.id(b.Name)
			name1 = uint32(id) + 1
		}
		out = appendULEB(out, name1)
		out = appendULEB(out, uint32(len(b.Params)))
		out = appendULEB(out, uint32(len(b.Blocks)))
		if len(b.Blocks) > 0 {
			out = appendULEB(out, next)
			next += uint32(len(b.Blocks))
		}
	}
	return out, nil
}
