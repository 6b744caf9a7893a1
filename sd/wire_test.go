package sd

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Hand-made wire builders for tests: they follow the spec text directly
// and share no code with the encoder.

// wobj returns an object with the given encoded entries.
func wobj(entries ...[]byte) []byte {
	out := []byte{byte(len(entries))}
	return append(out, bytes.Join(entries, nil)...)
}

// went returns one object entry: the hash of name, then the typed value.
func went(name string, typed []byte) []byte {
	return wentHash(Hash(name), typed)
}

func wentHash(h uint64, typed []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, h), typed...)
}

// warr returns a typed array value.
func warr(elems ...[]byte) []byte {
	out := []byte{13, byte(len(elems))}
	return append(out, bytes.Join(elems, nil)...)
}

// wtobj returns a typed object value.
func wtobj(entries ...[]byte) []byte { return append([]byte{14}, wobj(entries...)...) }

func wnull() []byte              { return []byte{0} }
func wbool(b byte) []byte        { return []byte{1, b} }
func wu8(v uint8) []byte         { return []byte{2, v} }
func wu16(v uint16) []byte       { return binary.LittleEndian.AppendUint16([]byte{3}, v) }
func wu32(v uint32) []byte       { return binary.LittleEndian.AppendUint32([]byte{4}, v) }
func wu64(v uint64) []byte       { return binary.LittleEndian.AppendUint64([]byte{5}, v) }
func wi8(v int8) []byte          { return []byte{6, byte(v)} }
func wi16(v int16) []byte        { return binary.LittleEndian.AppendUint16([]byte{7}, uint16(v)) }
func wi32(v int32) []byte        { return binary.LittleEndian.AppendUint32([]byte{8}, uint32(v)) }
func wi64(v int64) []byte        { return binary.LittleEndian.AppendUint64([]byte{9}, uint64(v)) }
func wf32bits(b uint32) []byte   { return binary.LittleEndian.AppendUint32([]byte{10}, b) }
func wf64bits(b uint64) []byte   { return binary.LittleEndian.AppendUint64([]byte{11}, b) }
func wf32(f float32) []byte      { return wf32bits(math.Float32bits(f)) }
func wf64(f float64) []byte      { return wf64bits(math.Float64bits(f)) }
func wstr(s string) []byte       { return append(append([]byte{12}, s...), 0) }
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
