package blk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Kind is the first byte of a binary BLK file.
type Kind byte

// The binary kinds. The names follow DagorEngine's FormatHeaderByte.
const (
	KindBBF          Kind = 0x00 // legacy "\0BBF" (BBF3) or "\0BBz" (zlib BBF3)
	KindFAT          Kind = 0x01 // full binary with its own names
	KindFATZstd      Kind = 0x02 // FAT compressed with zstd, u24 length prefix
	KindSlim         Kind = 0x03 // binary using the shared name map
	KindSlimZstd     Kind = 0x04 // SLIM compressed with zstd
	KindSlimZstdDict Kind = 0x05 // SLIM compressed with zstd and the vromfs dictionary
)

var kindNames = [...]string{"BBF", "FAT", "FAT_ZST", "SLIM", "SLIM_ZST", "SLIM_ZST_DICT"}

// String returns the kind's name: "FAT", "SLIM_ZST_DICT", ...
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(0x%02x)", byte(k))
}

// Slim reports whether the kind needs the shared name map.
func (k Kind) Slim() bool { return k >= KindSlim && k <= KindSlimZstdDict }

// DefaultMaxSize is the default limit on the decompressed size of a
// compressed BLK (zstd or zlib).
const DefaultMaxSize = 256 << 20

// MaxDepth is the deepest block nesting accepted (the root is depth 0).
const MaxDepth = 1000

// maxBlockEntries is the engine's limit on params and on sub-blocks of
// one block (u16 counters in DataBlock).
const maxBlockEntries = 0xFFFF

// Decoder decodes binary BLK files. The zero Decoder decodes the kinds
// that need no name map (FAT, FAT_ZST, BBF3); NewDecoder makes one with
// Options. A Decoder may be used by several goroutines at once; it must
// not be copied after first use.
type Decoder struct {
	nameMap *NameMap
	dicts   [][]byte
	maxSize int64 // 0: DefaultMaxSize

	once sync.Once
	zd   *zstd.Decoder
	zerr error
}

// NewDecoder returns a Decoder configured by opts: WithNameMap for the
// SLIM kinds (3, 4, 5), WithDicts for zstd dictionaries (a frame picks its
// dictionary by the ID in its header), WithMaxSize for the limit on the
// decompressed size. An option out of range is an error.
func NewDecoder(opts ...Option) (*Decoder, error) {
	var c config
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	return &Decoder{nameMap: c.nameMap, dicts: c.dicts, maxSize: c.maxSize}, nil
}

// Decode decodes a binary BLK file that needs no shared name map.
func Decode(data []byte) (*Block, error) {
	var d Decoder
	return d.Decode(data)
}

func (d *Decoder) limit() int64 {
	if d.maxSize > 0 {
		// Decompressed data is held in one slice: on 32-bit platforms no
		// more than an int can count.
		return min(d.maxSize, math.MaxInt-1)
	}
	return DefaultMaxSize
}

func (d *Decoder) zstd(src []byte) ([]byte, error) {
	d.once.Do(func() { d.zd, d.zerr = newZstdDecoder(d.dicts, d.limit()) })
	if d.zerr != nil {
		return nil, d.zerr
	}
	return zstdDecodeWith(d.zd, src)
}

// Decode decodes one binary BLK file of any kind.
func (d *Decoder) Decode(data []byte) (*Block, error) {
	r := &reader{b: data}
	if len(data) == 0 {
		return nil, r.errf(0, "empty input")
	}
	kind := Kind(data[0])
	switch kind {
	case KindBBF:
		return d.decodeBBF(data)
	case KindFAT:
		r.off = 1
		return parseBody(r, nil)
	case KindFATZstd:
		if len(data) < 4 {
			return nil, r.errf(1, "FAT_ZST length truncated")
		}
		n := int(data[1]) | int(data[2])<<8 | int(data[3])<<16
		if n > len(data)-4 {
			return nil, r.errf(1, "FAT_ZST frame of %d bytes runs past the end (%d left)", n, len(data)-4)
		}
		plain, err := d.zstd(data[4 : 4+n])
		if err != nil {
			return nil, &FormatError{Offset: 4, What: "bad FAT_ZST zstd frame", Err: err}
		}
		pr := &reader{b: plain, in: "zstd plaintext"}
		if len(plain) == 0 || plain[0] != byte(KindFAT) {
			return nil, pr.errf(0, "FAT_ZST plaintext does not start with kind 0x01")
		}
		pr.off = 1
		return parseBody(pr, nil)
	case KindSlim, KindSlimZstd, KindSlimZstdDict:
		if d.nameMap == nil {
			return nil, fmt.Errorf("%w to decode %v", ErrNameMapRequired, kind)
		}
		if kind == KindSlim {
			r.off = 1
			return parseBody(r, d.nameMap.Names)
		}
		if kind == KindSlimZstdDict && len(d.dicts) == 0 {
			return nil, fmt.Errorf("%w to decode %v", ErrDictRequired, kind)
		}
		plain, err := d.zstd(data[1:])
		if err != nil {
			return nil, &FormatError{Offset: 1, What: "bad " + kind.String() + " zstd stream", Err: err}
		}
		return parseBody(&reader{b: plain, in: "zstd plaintext"}, d.nameMap.Names)
	}
	return nil, fmt.Errorf("%w: first byte 0x%02x is not a binary BLK kind (text BLK?)", ErrUnsupported, data[0])
}

// DecodeBody decodes a binary BLK file of the given kind whose kind byte
// is missing, as some tools store it: for KindFAT and KindSlim the body,
// for KindFATZstd the u24 length and the zstd frame, for KindSlimZstd and
// KindSlimZstdDict the zstd data, for KindBBF the file from its "BBF" or
// "BBz" magic on. Offsets in errors count from the start of body, but
// for those in a decompressed unit (FormatError.In set), which count from
// the start of that unit as for Decode. A kind other than the six is an
// error matching ErrUnsupported.
func (d *Decoder) DecodeBody(kind Kind, body []byte) (*Block, error) {
	if kind > KindSlimZstdDict {
		return nil, fmt.Errorf("%w: %v is not a binary BLK kind", ErrUnsupported, kind)
	}
	data := make([]byte, 1+len(body))
	data[0] = byte(kind)
	copy(data[1:], body)
	b, err := d.Decode(data)
	// Every offset in the file, wherever it is in the chain, loses the
	// kind byte.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if fe, ok := e.(*FormatError); ok && fe.In == "" && fe.Offset > 0 {
			fe.Offset--
		}
	}
	return b, err
}

// nameList is the name table of a body: the shared names (SLIM), then the
// file's own names. It is not copied into one slice: a shared map may
// hold hundreds of thousands of names.
type nameList struct{ shared, local []string }

func (n nameList) len() int { return len(n.shared) + len(n.local) }

func (n nameList) get(id uint32) (string, bool) {
	if id < uint32(len(n.shared)) {
		return n.shared[id], true
	}
	id -= uint32(len(n.shared))
	if id < uint32(len(n.local)) {
		return n.local[id], true
	}
	return "", false
}

type blockInfo struct {
	name1, params, blocks, first uint32
	off                          int
}

// parseBody parses the FAT/SLIM body grammar from r.off. shared is the
// shared name table (nil for FAT).
func parseBody(r *reader, shared []string) (*Block, error) {
	local, err := readNames(r)
	if err != nil {
		return nil, err
	}
	names := nameList{shared: shared, local: local}
	nbOff := r.off
	nBlocks, err := r.uleb("blocks count")
	if err != nil {
		return nil, err
	}
	npOff := r.off
	nParams, err := r.uleb("params count")
	if err != nil {
		return nil, err
	}
	psOff := r.off
	payloadSize, err := r.uleb("payload size")
	if err != nil {
		return nil, err
	}
	if nBlocks == 0 {
		return nil, r.errf(nbOff, "blocks count is 0 (no root block)")
	}
	if uint64(payloadSize) > uint64(r.remaining()) {
		return nil, r.errf(psOff, "payload of %d bytes runs past the end (%d left)", payloadSize, r.remaining())
	}
	payloadOff := r.off
	payload := r.b[r.off : r.off+int(payloadSize)]
	r.off += int(payloadSize)
	if uint64(nParams)*8 > uint64(r.remaining()) {
		return nil, r.errf(npOff, "%d params (%d bytes) run past the end (%d left)", nParams, uint64(nParams)*8, r.remaining())
	}
	paramsOff := r.off
	recs := r.b[r.off : r.off+int(nParams)*8]
	r.off += int(nParams) * 8
	// Every block record takes at least 3 bytes: bound the allocation.
	if uint64(nBlocks)*3 > uint64(r.remaining()) {
		return nil, r.errf(nbOff, "%d blocks cannot fit in the %d bytes left", nBlocks, r.remaining())
	}
	infos := make([]blockInfo, nBlocks)
	for i := range infos {
		in := &infos[i]
		in.off = r.off
		if in.name1, err = r.uleb("block name"); err != nil {
			return nil, err
		}
		if in.params, err = r.uleb("block params count"); err != nil {
			return nil, err
		}
		if in.blocks, err = r.uleb("block children count"); err != nil {
			return nil, err
		}
		if in.blocks > 0 {
			if in.first, err = r.uleb("block first child"); err != nil {
				return nil, err
			}
		}
		if in.params > maxBlockEntries || in.blocks > maxBlockEntries {
			return nil, r.limitf(in.off, "block %d has %d params and %d blocks (max %d each)", i, in.params, in.blocks, maxBlockEntries)
		}
	}
	// Trailing bytes after the block map are ignored, as by the engine.

	params, err := decodeParams(r, recs, paramsOff, payload, payloadOff, names)
	if err != nil {
		return nil, err
	}
	return buildTree(r, infos, params, names)
}

// decodeParams decodes the 8-byte param records.
func decodeParams(r *reader, recs []byte, recsOff int, payload []byte, payloadOff int, names nameList) ([]Param, error) {
	n := len(recs) / 8
	if n == 0 {
		return nil, nil
	}
	params := make([]Param, n)
	var ps string // the payload as one string, made on first use
	for i := range params {
		rec := recs[i*8 : i*8+8]
		off := recsOff + i*8
		nameID := uint32(rec[0]) | uint32(rec[1])<<8 | uint32(rec[2])<<16
		typ := Type(rec[3])
		v := binary.LittleEndian.Uint32(rec[4:])
		p := &params[i]
		var ok bool
		if p.Name, ok = names.get(nameID); !ok {
			return nil, r.errf(off, "param %d: name id %d out of range (%d names)", i, nameID, names.len())
		}
		p.Value.typ = typ
		switch {
		case typ == TypeString:
			if v&0x80000000 != 0 {
				idx := v & 0x7FFFFFFF
				if p.Value.s, ok = names.get(idx); !ok {
					return nil, r.errf(off+4, "param %d: string name id %d out of range (%d names)", i, idx, names.len())
				}
				break
			}
			if v >= uint32(len(payload)) {
				return nil, r.errf(off+4, "param %d: string offset %d past the payload (%d bytes)", i, v, len(payload))
			}
			if ps == "" {
				ps = string(payload)
			}
			end := strings.IndexByte(ps[v:], 0)
			if end < 0 {
				return nil, r.errf(payloadOff+int(v), "param %d: string not NUL-terminated in the payload", i)
			}
			p.Value.s = ps[v : v+uint32(end)]
		case typ == TypeBool:
			if v&0xFF != 0 {
				p.Value.w[0] = 1
			}
		case typ == TypeInt || typ == TypeReal || typ == TypeColor:
			p.Value.w[0] = v
		case typ.Valid():
			size := uint64(typ.Size())
			if uint64(v)+size > uint64(len(payload)) {
				return nil, r.errf(off+4, "param %d: %v value at payload offset %d runs past the payload (%d bytes)", i, typ, v, len(payload))
			}
			b := payload[v:]
			for j := 0; j < int(size)/4 && j < 4; j++ {
				p.Value.w[j] = binary.LittleEndian.Uint32(b[j*4:])
			}
			if typ == TypeMatrix { // words 4..11 share the payload string
				if ps == "" {
					ps = string(payload)
				}
				p.Value.s = ps[v+16 : v+48]
			}
		default:
			return nil, r.errf(off+3, "param %d: unknown type 0x%02x", i, byte(typ))
		}
	}
	return params, nil
}

// buildTree turns the flat block list into a tree, checking that every
// block but the root is claimed exactly once and reachable from the root.
func buildTree(r *reader, infos []blockInfo, params []Param, names nameList) (*Block, error) {
	n := len(infos)
	blocks := make([]Block, n)
	claimed := make([]bool, n)
	claimed[0] = true
	kids := make([]*Block, 0, n-1)
	pnext := uint64(0)
	for i := range infos {
		in := &infos[i]
		b := &blocks[i]
		if in.name1 != 0 {
			var ok bool
			if b.Name, ok = names.get(in.name1 - 1); !ok {
				return nil, r.errf(in.off, "block %d: name id %d out of range (%d names)", i, in.name1-1, names.len())
			}
		}
		if pnext+uint64(in.params) > uint64(len(params)) {
			return nil, r.errf(in.off, "block %d claims params %d..%d of %d", i, pnext, pnext+uint64(in.params), len(params))
		}
		if in.params > 0 {
			b.Params = params[pnext : pnext+uint64(in.params) : pnext+uint64(in.params)]
		}
		pnext += uint64(in.params)
		if in.blocks == 0 {
			continue
		}
		if in.first == 0 || uint64(in.first)+uint64(in.blocks) > uint64(n) {
			return nil, r.errf(in.off, "block %d: children %d..%d out of range (%d blocks)", i, in.first, uint64(in.first)+uint64(in.blocks), n)
		}
		start := len(kids)
		for j := in.first; j < in.first+in.blocks; j++ {
			if claimed[j] {
				return nil, r.errf(in.off, "block %d claims block %d, already claimed", i, j)
			}
			claimed[j] = true
			kids = append(kids, &blocks[j])
		}
		b.Blocks = kids[start:len(kids):len(kids)]
	}
	if pnext != uint64(len(params)) {
		return nil, r.errf(infos[n-1].off, "%d params belong to no block", uint64(len(params))-pnext)
	}
	for j, c := range claimed {
		if !c {
			return nil, r.errf(infos[j].off, "block %d is claimed by no block", j)
		}
	}
	// Every block but the root has exactly one parent; blocks not reached
	// from the root form a cycle. Walk breadth-first, tracking depth.
	reached := 1
	level := []*Block{&blocks[0]}
	for depth := 0; len(level) > 0; depth++ {
		if depth > MaxDepth {
			return nil, r.limitf(infos[0].off, "blocks nested deeper than %d", MaxDepth)
		}
		var next []*Block
		for _, b := range level {
			next = append(next, b.Blocks...)
		}
		reached += len(next)
		if reached > n {
			break
		}
		level = next
	}
	if reached != n {
		return nil, r.errf(infos[0].off, "%d blocks are not reachable from the root (cycle)", n-reached)
	}
	return &blocks[0], nil
}
