package blk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zlib"
)

// The legacy BBF3 format (first bytes "\0BBF", version 3) and its zlib
// variant "\0BBz", as read by DagorEngine's blk_readBBF3.cpp. The header
// is 12 bytes: magic, u16 version, u16 (ignored), u32 body size.

const bbfHeaderSize = 12

// Limits of the BBF3 reader, as in the engine.
const (
	bbfMaxNames   = 2 << 20
	bbfMaxStrings = 64 << 20
)

func (d *Decoder) decodeBBF(data []byte) (*Block, error) {
	r := &reader{b: data}
	if len(data) < bbfHeaderSize {
		return nil, r.errf(0, "legacy BBF header truncated (%d of %d bytes)", len(data), bbfHeaderSize)
	}
	switch string(data[1:4]) {
	case "BBF":
		return decodeBBF3(data, "")
	case "BBz":
		usize := binary.LittleEndian.Uint32(data[4:])
		csize := binary.LittleEndian.Uint32(data[8:])
		if int64(usize) > d.limit() {
			return nil, r.limitf(4, "BBz unpacked size %d above %d", usize, d.limit())
		}
		if uint64(csize) > uint64(len(data)-bbfHeaderSize) {
			return nil, r.errf(8, "BBz packed data of %d bytes runs past the end (%d left)", csize, len(data)-bbfHeaderSize)
		}
		zr, err := zlib.NewReader(bytes.NewReader(data[bbfHeaderSize : bbfHeaderSize+int(csize)]))
		if err != nil {
			return nil, &FormatError{Offset: bbfHeaderSize, What: "bad BBz zlib stream", Err: err}
		}
		// Grow with the data actually inflated, never trusting usize.
		plain, err := io.ReadAll(io.LimitReader(zr, int64(usize)+1))
		if err != nil {
			return nil, &FormatError{Offset: bbfHeaderSize, What: "bad BBz zlib stream", Err: err}
		}
		if int64(len(plain)) != int64(usize) {
			return nil, r.errf(4, "BBz inflates to %d bytes, header says %d", len(plain), usize)
		}
		if len(plain) < 4 || string(plain[:4]) != "\x00BBF" {
			return nil, (&reader{in: "zlib plaintext"}).errf(0, "BBz plaintext is not a BBF3 file")
		}
		return decodeBBF3(plain, "zlib plaintext")
	}
	return nil, fmt.Errorf("%w: first byte 0x00 without a BBF or BBz magic", ErrUnsupported)
}

func decodeBBF3(data []byte, in string) (*Block, error) {
	r := &reader{b: data, in: in}
	if v := binary.LittleEndian.Uint16(data[4:]); v != 3 {
		return nil, fmt.Errorf("%w: BBF version %d (only 3)", ErrUnsupported, v)
	}
	size := binary.LittleEndian.Uint32(data[8:])
	if uint64(size) > uint64(len(data)-bbfHeaderSize) {
		return nil, r.errf(8, "BBF body of %d bytes runs past the end (%d left)", size, len(data)-bbfHeaderSize)
	}
	// Offsets stay relative to the file: limit b to the body's end.
	r.b = data[:bbfHeaderSize+int(size)]
	r.off = bbfHeaderSize
	conv, err := bbfNames(r)
	if err != nil {
		return nil, err
	}
	strs, err := bbfStrings(r)
	if err != nil {
		return nil, err
	}
	root := &Block{}
	if err := bbfBlock(r, root, conv, strs, 0); err != nil {
		return nil, err
	}
	if r.off != len(r.b) {
		return nil, r.errf(r.off, "%d bytes left in the BBF body", len(r.b)-r.off)
	}
	return root, nil
}

// bbfLen reads the 1-, 2- or 3-byte big-endian length of the compact maps.
func bbfLen(r *reader, what string) (int, int, error) {
	b0, err := r.u8(what)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case b0 < 0x80:
		return int(b0), 1, nil
	case b0&0xC0 == 0x80:
		b1, err := r.u8(what)
		return int(b0&0x3F)<<8 | int(b1), 2, err
	}
	b, err := r.bytes(2, what)
	if err != nil {
		return 0, 0, err
	}
	return int(b0&0x3F)<<16 | int(b[0])<<8 | int(b[1]), 3, nil
}

// bbfCount reads a count stored in 0, 1, 2 or 4 bytes (storage type pk).
func bbfCount(r *reader, pk int, what string) (uint32, int, error) {
	switch pk {
	case 1:
		v, err := r.u8(what)
		return uint32(v), 1, err
	case 2:
		v, err := r.u16(what)
		return uint32(v), 2, err
	case 3:
		v, err := r.u32(what)
		return v, 4, err
	}
	return 0, 0, nil
}

// bbfHash is the engine's string hash (djb2, 32-bit).
func bbfHash(s string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint32(s[i])
	}
	return h
}

// bbfNames reads the hashed compact name map. Name ids in the file are
// bucket*count+hash positions; the result maps them to names ("" for an
// empty name, which params may not use).
func bbfNames(r *reader) (map[uint32]string, error) {
	start := r.off
	hdr, err := r.u16("BBF name map header")
	if err != nil {
		return nil, err
	}
	pk := int(hdr >> 14)
	if pk == 0 {
		_, err := r.bytes(2, "BBF name map padding")
		return map[uint32]string{}, err
	}
	buckets := uint32(hdr & 0x3FFF)
	if buckets == 0 || buckets&(buckets-1) != 0 {
		return nil, r.errf(start, "BBF name map bucket count %d is not a power of 2", buckets)
	}
	num, csz, err := bbfCount(r, pk, "BBF names count")
	if err != nil {
		return nil, err
	}
	if num > bbfMaxNames || uint64(num) > uint64(r.remaining()) {
		return nil, r.errf(start+2, "BBF names count %d too large", num)
	}
	total := 2 + csz
	conv := make(map[uint32]string, num)
	perBucket := make(map[uint32]uint32)
	for i := uint32(0); i < num; i++ {
		n, lsz, err := bbfLen(r, "BBF name length")
		if err != nil {
			return nil, err
		}
		b, err := r.bytes(n, "BBF name")
		if err != nil {
			return nil, err
		}
		total += lsz + n
		name := string(b)
		if k := strings.IndexByte(name, 0); k >= 0 {
			name = name[:k]
		}
		h := bbfHash(name) % buckets
		conv[perBucket[h]*buckets+h] = name
		perBucket[h]++
	}
	_, err = r.bytes((4-total%4)%4, "BBF name map padding")
	return conv, err
}

// bbfStrings reads the compact string table.
func bbfStrings(r *reader) ([]string, error) {
	start := r.off
	hdr, err := r.u32("BBF string table header")
	if err != nil || hdr == 0 {
		return nil, err
	}
	pk := int(hdr >> 30)
	size := hdr & 0x3FFFFFFF
	if size > MaxNamesSize {
		return nil, r.limitf(start, "BBF string table of %d bytes above %d", size, MaxNamesSize)
	}
	cnt, csz, err := bbfCount(r, pk, "BBF strings count")
	if err != nil {
		return nil, err
	}
	if cnt > bbfMaxStrings || cnt > size {
		return nil, r.errf(start+4, "BBF strings count %d too large for %d bytes", cnt, size)
	}
	dataOff := r.off
	data, err := r.bytes(int(size), "BBF string table")
	if err != nil {
		return nil, err
	}
	if _, err := r.bytes((4-(int(size)+csz)%4)%4, "BBF string table padding"); err != nil {
		return nil, err
	}
	sr := &reader{b: data, base: r.base + int64(dataOff), in: r.in}
	strs := make([]string, cnt)
	for i := range strs {
		n, _, err := bbfLen(sr, "BBF string length")
		if err != nil {
			return nil, err
		}
		b, err := sr.bytes(n, "BBF string")
		if err != nil {
			return nil, err
		}
		s := string(b)
		if k := strings.IndexByte(s, 0); k >= 0 {
			s = s[:k]
		}
		strs[i] = s
	}
	return strs, nil
}

// bbfBlock reads one block: u16 params, u16 blocks, the param headers, the
// values of the non-bool params, then each sub-block after its u32 name id.
func bbfBlock(r *reader, b *Block, conv map[uint32]string, strs []string, depth int) error {
	if depth > MaxDepth {
		return r.limitf(r.off, "blocks nested deeper than %d", MaxDepth)
	}
	np, err := r.u16("BBF params count")
	if err != nil {
		return err
	}
	nb, err := r.u16("BBF blocks count")
	if err != nil {
		return err
	}
	if int(np)*4 > r.remaining() {
		return r.errf(r.off, "%d BBF param headers run past the end", np)
	}
	if np > 0 {
		b.Params = make([]Param, np)
	}
	hdrOff := r.off
	for i := range b.Params {
		hdr, _ := r.u32("BBF param header")
		id := hdr & 0xFFFFFF
		name, ok := conv[id]
		if !ok {
			return r.errf(hdrOff+i*4, "BBF param name id %d not in the name map", id)
		}
		if name == "" {
			return r.errf(hdrOff+i*4, "BBF param with an empty name")
		}
		t := Type(hdr >> 24 & 0x7F)
		switch t {
		case TypeString, TypeInt, TypeReal, TypePoint2, TypePoint3, TypePoint4,
			TypeIPoint2, TypeIPoint3, TypeMatrix, TypeColor, TypeInt64:
		case TypeBool:
			// The value is bit 31 of the header (the engine's reading).
			if hdr&0x80000000 != 0 {
				b.Params[i].Value.w[0] = 1
			}
		default:
			return r.errf(hdrOff+i*4+3, "BBF param type 0x%02x not supported", byte(t))
		}
		b.Params[i].Name = name
		b.Params[i].Value.typ = t
	}
	for i := range b.Params {
		v := &b.Params[i].Value
		switch v.typ {
		case TypeBool:
			continue
		case TypeString:
			off := r.off
			idx, err := r.u32("BBF string index")
			if err != nil {
				return err
			}
			if idx >= uint32(len(strs)) {
				return r.errf(off, "BBF string index %d out of range (%d strings)", idx, len(strs))
			}
			v.s = strs[idx]
		case TypeColor:
			c, err := r.u32("BBF color")
			if err != nil {
				return err
			}
			// E3DCOLOR(r = c>>24, g = c>>16, b = c>>8, a = c)
			*v = ColorValue(Color{R: uint8(c >> 24), G: uint8(c >> 16), B: uint8(c >> 8), A: uint8(c)})
		default:
			raw, err := r.bytes(v.typ.Size(), "BBF "+v.typ.String()+" value")
			if err != nil {
				return err
			}
			var w [12]uint32
			for j := 0; j < len(raw)/4; j++ {
				w[j] = binary.LittleEndian.Uint32(raw[j*4:])
			}
			*v = makeValue(v.typ, &w)
		}
	}
	if int(nb)*8 > r.remaining() { // name id + counts per child
		return r.errf(r.off, "%d BBF blocks run past the end", nb)
	}
	if nb > 0 {
		b.Blocks = make([]*Block, nb)
	}
	for i := range b.Blocks {
		off := r.off
		id, _ := r.u32("BBF block name id")
		name, ok := conv[id]
		if !ok {
			return r.errf(off, "BBF block name id %d not in the name map", id)
		}
		c := &Block{Name: name}
		b.Blocks[i] = c
		if err := bbfBlock(r, c, conv, strs, depth+1); err != nil {
			return err
		}
	}
	return nil
}
