package blk

import (
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// sdFormat is the "format" member of the BPXSD mapping (see ToSD).
const sdFormat = "blk/1"

const (
	sdNameB64  = 0x40
	sdValueB64 = 0x80
	sdMaxDepth = 64 // enough for lists of 255^20 items
)

func sdString(s string) (sd.Value, bool) {
	if utf8.ValidString(s) {
		return sd.String(s), false
	}
	return sd.String(base64.StdEncoding.EncodeToString([]byte(s))), true
}

// sdList encodes items as a list, chunking beyond 255 entries.
func sdList(items []sd.Value) sd.Value {
	if len(items) <= sd.MaxEntries {
		return sd.Array(items...)
	}
	chunks := make([]sd.Value, 0, (len(items)+sd.MaxEntries-1)/sd.MaxEntries)
	for len(items) > 0 {
		n := min(len(items), sd.MaxEntries)
		chunks = append(chunks, sd.Array(items[:n:n]...))
		items = items[n:]
	}
	return sd.NewObject().Set("chunks", sdList(chunks)).Value()
}

// ToSD converts b to a BPXSD object without loss. The result encodes
// with sd.Encode as long as names and strings hold no NUL byte.
//
// BPXSD objects are keyed by name hashes and hold at most 255 entries, so a BLK tree is stored
// flat, in the binary form's own shape, which keeps every type, the order
// and the duplicates and needs a nesting depth of 6 whatever the BLK
// depth (plus 2 per chunk level of lists beyond 255 entries):
//
//	root   = {"format": "blk/1", "blocks": list(block, ...)}
//	block  = [name, flags u8, children u16, list(param, ...)]
//	param  = [name, type u8, value]
//	list   = [item, ...]                       when at most 255 items
//	       | {"chunks": list([item ×255], ...)} otherwise
//
// Blocks are listed breadth-first, the root first; a block's children are
// the next unclaimed blocks of the list, in order, as in binary BLK. The
// param type byte is the BLK type id (1 to 13); bit 0x40 of a block's
// flags or of a param's type byte marks a name, and bit 0x80 of the type
// byte a string value, that is not valid UTF-8 and is stored as the
// base64 of its bytes. Values: t String, i Int32, r Float32, p2/p3/p4
// Array of Float32, ip2/ip3/ip4 Array of Int32, b Bool, c Array of Uint8
// r, g, b, a, m Array of 12 Float32 (4 rows of 3), i64 Int64. A NaN
// float is stored as the Uint32 of its bits, keeping its payload.
func ToSD(b *Block) (*sd.Object, error) {
	bfs := []*Block{b}
	for i := 0; i < len(bfs); i++ {
		if len(bfs) > 1<<28 {
			return nil, encodeErrf("too many blocks")
		}
		bfs = append(bfs, bfs[i].Blocks...)
	}
	blocks := make([]sd.Value, len(bfs))
	for i, blk := range bfs {
		if len(blk.Blocks) > math.MaxUint16 {
			return nil, encodeErrf("block %q has %d sub-blocks (max %d)", blk.Name, len(blk.Blocks), math.MaxUint16)
		}
		params := make([]sd.Value, len(blk.Params))
		for j, p := range blk.Params {
			v, err := sdParam(p)
			if err != nil {
				return nil, err
			}
			params[j] = v
		}
		name, b64 := sdString(blk.Name)
		var flags uint8
		if b64 {
			flags |= sdNameB64
		}
		blocks[i] = sd.Array(name, sd.Uint8(flags), sd.Uint16(uint16(len(blk.Blocks))), sdList(params))
	}
	o := sd.NewObject()
	o.Set("format", sd.String(sdFormat))
	o.Set("blocks", sdList(blocks))
	return o, nil
}

func sdParam(p Param) (sd.Value, error) {
	v := p.Value
	if !v.typ.Valid() {
		return sd.Value{}, encodeErrf("param %q has the invalid type %d", p.Name, v.typ)
	}
	code := uint8(v.typ)
	name, b64 := sdString(p.Name)
	if b64 {
		code |= sdNameB64
	}
	var val sd.Value
	switch v.typ {
	case TypeString:
		var sb64 bool
		if val, sb64 = sdString(v.s); sb64 {
			code |= sdValueB64
		}
	case TypeInt:
		val = sd.Int32(v.Int())
	case TypeReal:
		val = sdFloat(v.w[0])
	case TypeBool:
		val = sd.Bool(v.Bool())
	case TypeInt64:
		val = sd.Int64(v.Int64())
	case TypeColor:
		c := v.Color()
		val = sd.Array(sd.Uint8(c.R), sd.Uint8(c.G), sd.Uint8(c.B), sd.Uint8(c.A))
	case TypePoint2, TypePoint3, TypePoint4, TypeMatrix:
		w, n := v.raw()
		a := make([]sd.Value, n)
		for i, x := range w[:n] {
			a[i] = sdFloat(x)
		}
		val = sd.Array(a...)
	default: // ipoint2/3/4
		w, n := v.raw()
		a := make([]sd.Value, n)
		for i, x := range w[:n] {
			a[i] = sd.Int32(int32(x))
		}
		val = sd.Array(a...)
	}
	return sd.Array(name, sd.Uint8(code), val), nil
}

// sdFloat stores a float32; a NaN is stored as the Uint32 of its bits,
// because BPXSD readers need not keep NaN payloads.
func sdFloat(bits uint32) sd.Value {
	if f := math.Float32frombits(bits); f != f {
		return sd.Uint32(bits)
	}
	return sd.Float32(math.Float32frombits(bits))
}

// sdFloatBits reads a value written by sdFloat.
func sdFloatBits(v sd.Value) (uint32, bool) {
	switch v.Kind() {
	case sd.KindFloat32:
		f, _ := v.AsFloat()
		return math.Float32bits(float32(f)), true
	case sd.KindUint32:
		u, _ := v.AsUint()
		return uint32(u), math.IsNaN(float64(math.Float32frombits(uint32(u))))
	}
	return 0, false
}

// sdError reports a BPXSD document that is not a BLK mapping.
func sdError(format string, args ...any) error {
	return fmt.Errorf("%w: BPXSD: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// sdItems decodes a list, limiting its size to max items.
func sdItems(v sd.Value, max int, depth int) ([]sd.Value, error) {
	if v.Kind() == sd.KindArray {
		return v.Array(), nil
	}
	o := v.Object()
	if o == nil || depth > sdMaxDepth {
		return nil, sdError("list is a %v, not an array or {chunks}", v.Kind())
	}
	c, ok := o.Get("chunks")
	if !ok || o.Len() != 1 {
		return nil, sdError("list object without exactly a chunks member")
	}
	chunks, err := sdItems(c, max, depth+1)
	if err != nil {
		return nil, err
	}
	var items []sd.Value
	for _, ch := range chunks {
		if ch.Kind() != sd.KindArray {
			return nil, sdError("list chunk is a %v", ch.Kind())
		}
		if len(items)+len(ch.Array()) > max {
			return nil, sdError("list longer than %d", max)
		}
		items = append(items, ch.Array()...)
	}
	return items, nil
}

func sdText(v sd.Value, b64 bool, what string) (string, error) {
	s, ok := v.AsString()
	if !ok {
		return "", sdError("%s is a %v, not a string", what, v.Kind())
	}
	if !b64 {
		return s, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", sdError("%s: bad base64: %v", what, err)
	}
	return string(raw), nil
}

// FromSD converts a BPXSD object made by ToSD back to a BLK tree. Any
// deviation from the mapping is an error matching ErrFormat.
func FromSD(o *sd.Object) (*Block, error) {
	if f, _ := o.Get("format"); f.Kind() != sd.KindString {
		return nil, sdError("no format member")
	} else if s, _ := f.AsString(); s != sdFormat {
		return nil, sdError("format %q, want %q", s, sdFormat)
	}
	bv, ok := o.Get("blocks")
	if !ok {
		return nil, sdError("no blocks member")
	}
	recs, err := sdItems(bv, 1<<28, 0)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, sdError("no root block")
	}
	blocks := make([]Block, len(recs))
	next := 1
	for i, rv := range recs {
		rec := rv.Array()
		if len(rec) != 4 {
			return nil, sdError("block %d is not [name, flags, children, params]", i)
		}
		flags, ok1 := rec[1].AsUint()
		nkids, ok2 := rec[2].AsUint()
		if !ok1 || !ok2 || rec[1].Kind() != sd.KindUint8 || rec[2].Kind() != sd.KindUint16 || flags&^sdNameB64 != 0 {
			return nil, sdError("block %d: bad flags or children count", i)
		}
		b := &blocks[i]
		if b.Name, err = sdText(rec[0], flags&sdNameB64 != 0, fmt.Sprintf("block %d name", i)); err != nil {
			return nil, err
		}
		params, err := sdItems(rec[3], maxBlockEntries, 0)
		if err != nil {
			return nil, err
		}
		if len(params) > 0 {
			b.Params = make([]Param, len(params))
		}
		for j, pv := range params {
			if b.Params[j], err = sdParamFrom(pv); err != nil {
				return nil, fmt.Errorf("block %d param %d: %w", i, j, err)
			}
		}
		if nkids == 0 {
			continue
		}
		if next+int(nkids) > len(blocks) {
			return nil, sdError("block %d claims %d children, only %d blocks left", i, nkids, len(blocks)-next)
		}
		b.Blocks = make([]*Block, nkids)
		for k := range b.Blocks {
			b.Blocks[k] = &blocks[next+k]
		}
		next += int(nkids)
	}
	if next != len(blocks) {
		return nil, sdError("%d blocks are nobody's children", len(blocks)-next)
	}
	return &blocks[0], nil
}

func sdParamFrom(pv sd.Value) (Param, error) {
	e := pv.Array()
	if len(e) != 3 || e[1].Kind() != sd.KindUint8 {
		return Param{}, sdError("param is not [name, type, value]")
	}
	code, _ := e[1].AsUint()
	t := Type(code &^ (sdNameB64 | sdValueB64))
	if !t.Valid() || code&sdValueB64 != 0 && t != TypeString {
		return Param{}, sdError("bad type byte 0x%02x", code)
	}
	name, err := sdText(e[0], code&sdNameB64 != 0, "param name")
	if err != nil {
		return Param{}, err
	}
	v, val := Value{typ: t}, e[2]
	bad := func() (Param, error) {
		return Param{}, sdError("param %q: %v value is a %v %v", name, t, val.Kind(), val)
	}
	want := func(k sd.Kind, n int) ([]sd.Value, bool) {
		a := val.Array()
		if val.Kind() != sd.KindArray || len(a) != n {
			return nil, false
		}
		for _, x := range a {
			if x.Kind() != k {
				return nil, false
			}
		}
		return a, true
	}
	switch t {
	case TypeString:
		s, err := sdText(val, code&sdValueB64 != 0, "string value")
		if err != nil {
			return Param{}, err
		}
		v.s = s
	case TypeInt, TypeInt64:
		k := map[Type]sd.Kind{TypeInt: sd.KindInt32, TypeInt64: sd.KindInt64}[t]
		n, ok := val.AsInt()
		if !ok || val.Kind() != k {
			return bad()
		}
		v.w[0], v.w[1] = uint32(n), uint32(uint64(n)>>32)
		if t == TypeInt {
			v.w[1] = 0
		}
	case TypeReal:
		bits, ok := sdFloatBits(val)
		if !ok {
			return bad()
		}
		v.w[0] = bits
	case TypeBool:
		bv, ok := val.AsBool()
		if !ok {
			return bad()
		}
		v = Bool(bv)
	case TypeColor:
		a, ok := want(sd.KindUint8, 4)
		if !ok {
			return bad()
		}
		var c [4]uint8
		for i, x := range a {
			u, _ := x.AsUint()
			c[i] = uint8(u)
		}
		v = ColorValue(Color{c[0], c[1], c[2], c[3]})
	case TypePoint2, TypePoint3, TypePoint4, TypeMatrix:
		a := val.Array()
		if val.Kind() != sd.KindArray || len(a) != typeInfo[t].words {
			return bad()
		}
		var w [12]uint32
		for i, x := range a {
			bits, ok := sdFloatBits(x)
			if !ok {
				return bad()
			}
			w[i] = bits
		}
		v = makeValue(t, &w)
	default:
		a, ok := want(sd.KindInt32, typeInfo[t].words)
		if !ok {
			return bad()
		}
		for i, x := range a {
			n, _ := x.AsInt()
			v.w[i] = uint32(n)
		}
	}
	return Param{name, v}, nil
}

// BPXType is the container Type byte WriteBPX uses for BLK data ('D',
// "data block"). The container holds one structured-data section (0xFE)
// with the BPXSD mapping of the tree; TypeExt starts with "BLK".
const BPXType = 'D'

var bpxTypeExt = [16]byte{'B', 'L', 'K', 1}

// WriteBPX writes b as a BPX container: Type BPXType, TypeExt "BLK\x01",
// and one zlib-compressed, CRC32-checked structured-data section holding
// ToSD(b), written with key names (__debug__) so that generic BPXSD tools
// can show them.
func WriteBPX(w io.Writer, b *Block) error {
	o, err := ToSD(b)
	if err != nil {
		return err
	}
	data, err := sd.Encode(o, sd.WithDebugNames(), sd.WithMaxEncodeDepth(sdMaxDepth))
	if err != nil {
		return fmt.Errorf("%w: BPXSD: %v", ErrEncode, err)
	}
	bw := bpx.NewWriter(w)
	bw.SetType(BPXType)
	bw.SetTypeExt(bpxTypeExt)
	err = bw.WriteSection(bpx.SectionTypeStructuredData, bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: bpx.ChecksumCRC32}, data)
	if cerr := bw.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadBPX reads a container written by WriteBPX. Container errors come
// from package bpx (matching bpx.ErrFormat and friends); a section that is
// not a BLK mapping gives ErrFormat of this package.
func ReadBPX(r io.ReaderAt, size int64) (*Block, error) {
	rd, err := bpx.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	if rd.Header.Type != BPXType {
		return nil, fmt.Errorf("%w: BPX type %q is not BLK data (%q)", ErrFormat, rd.Header.Type, BPXType)
	}
	s := rd.FindSection(bpx.SectionTypeStructuredData)
	if s == nil {
		return nil, fmt.Errorf("%w: BPX container without a structured-data section", ErrFormat)
	}
	data, err := s.Data()
	if err != nil {
		return nil, err
	}
	o, err := sd.Decode(data, sd.WithMaxDecodeDepth(sdMaxDepth))
	if err != nil {
		return nil, fmt.Errorf("%w: BPXSD: %w", ErrFormat, err)
	}
	return FromSD(o)
}
