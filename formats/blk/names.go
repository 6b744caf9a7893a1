package blk

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// MaxNamesSize is the largest names section accepted, as in the engine
// (BLK_MAX_MEMORY_FOR_NAMES).
const MaxNamesSize = 256 << 20

// readNames reads a names section: ULEB count, then (only when the count
// is not 0) ULEB size and size bytes of NUL-terminated names. Like the
// engine, the last name may end at the end of the section, and bytes
// after the last name are ignored.
func readNames(r *reader) ([]string, error) {
	countOff := r.off
	count, err := r.uleb("names count")
	if err != nil || count == 0 {
		return nil, err
	}
	sizeOff := r.off
	size, err := r.uleb("names size")
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, r.errf(sizeOff, "names size is 0 for %d names", count)
	}
	if size > MaxNamesSize {
		return nil, r.limitf(sizeOff, "names size %d above %d", size, MaxNamesSize)
	}
	if uint64(size) > uint64(r.remaining()) {
		return nil, r.errf(sizeOff, "names section of %d bytes runs past the end (%d left)", size, r.remaining())
	}
	if count > size {
		return nil, r.errf(countOff, "%d names cannot fit in %d bytes", count, size)
	}
	start := r.off
	all := string(r.b[start : start+int(size)]) // one allocation for all names
	r.off += int(size)
	names := make([]string, count)
	p := 0
	for i := range names {
		if p >= len(all) {
			return nil, r.errf(start+p, "names section holds %d of %d names", i, count)
		}
		n := strings.IndexByte(all[p:], 0)
		if n < 0 {
			n = len(all) - p
		}
		names[i] = all[p : p+n]
		p += n + 1
	}
	return names, nil
}

// checkNamesSize fails if the names section of names would be larger than
// limit bytes: the engine, and Decode, read no larger one.
func checkNamesSize(names []string, limit int) error {
	size := 0
	for _, n := range names {
		if len(n) >= limit-size { // size+len(n)+1 > limit, without overflow
			return encodeErrf("names section of more than %d bytes (the engine reads at most %d)", limit, MaxNamesSize)
		}
		size += len(n) + 1
	}
	return nil
}

// appendNames appends a names section for names to dst.
func appendNames(dst []byte, names []string) []byte {
	dst = appendULEB(dst, uint32(len(names)))
	if len(names) == 0 {
		return dst
	}
	size := 0
	for _, n := range names {
		size += len(n) + 1
	}
	dst = appendULEB(dst, uint32(size))
	for _, n := range names {
		dst = append(dst, n...)
		dst = append(dst, 0)
	}
	return dst
}

// appendULEB appends v as unsigned LEB128.
func appendULEB(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// NameMap is a shared name map: the "nm" file of a vromfs, used by the
// SLIM kinds (3, 4, 5). Name ids below len(Names) index it; higher ids
// index a file's local names.
type NameMap struct {
	Names []string
	// NamesDigest identifies the name map. The engine only uses it as a
	// cache key; its algorithm in game files is unknown.
	NamesDigest [8]byte
	// DictDigest names the zstd dictionary file of the vromfs: its
	// lowercase hex plus ".dict" (see DictFileName).
	DictDigest [32]byte
}

// nmHeaderSize is the size of the digests before the zstd frame.
const nmHeaderSize = 8 + 32

// ParseNameMap parses an nm file: an 8-byte names digest, a 32-byte
// dictionary digest, then a zstd frame holding a names section. The
// decompressed size is limited to MaxNamesSize plus 10 bytes.
func ParseNameMap(data []byte) (*NameMap, error) {
	r := &reader{b: data}
	if len(data) < nmHeaderSize {
		return nil, r.errf(0, "name map of %d bytes is shorter than its %d-byte header", len(data), nmHeaderSize)
	}
	m := &NameMap{}
	copy(m.NamesDigest[:], data[:8])
	copy(m.DictDigest[:], data[8:40])
	plain, err := zstdDecompress(data[nmHeaderSize:], nil, MaxNamesSize+10)
	if err != nil {
		return nil, &FormatError{Offset: nmHeaderSize, What: "bad zstd frame in name map", Err: err}
	}
	pr := &reader{b: plain, in: "name map plaintext"}
	if m.Names, err = readNames(pr); err != nil {
		return nil, err
	}
	return m, nil
}

// NewNameMap returns a name map for names that refers to the dictionary
// dict (nil if none). It sets DictDigest to sha256(dict) and NamesDigest
// to the first 8 bytes of the sha1 of the names section, the convention
// of kotiq's writer; the engine treats both as opaque.
func NewNameMap(names []string, dict []byte) *NameMap {
	m := &NameMap{Names: names}
	sec := appendNames(nil, names)
	h := sha1.Sum(sec)
	copy(m.NamesDigest[:], h[:8])
	if dict != nil {
		m.DictDigest = sha256.Sum256(dict)
	}
	return m
}

// DictFileName returns the file name of the dictionary this name map
// refers to: the hex dictionary digest plus ".dict".
func (m *NameMap) DictFileName() string { return hex.EncodeToString(m.DictDigest[:]) + ".dict" }

// MarshalBinary returns the nm file for m, compressed at the default zstd
// level. Names must not contain NUL.
func (m *NameMap) MarshalBinary() ([]byte, error) {
	for _, n := range m.Names {
		if strings.IndexByte(n, 0) >= 0 {
			return nil, encodeErrf("name %q contains a NUL byte", n)
		}
	}
	if err := checkNamesSize(m.Names, MaxNamesSize); err != nil {
		return nil, err
	}
	out := make([]byte, 0, nmHeaderSize+16)
	out = append(out, m.NamesDigest[:]...)
	out = append(out, m.DictDigest[:]...)
	z, err := zstdCompress(appendNames(nil, m.Names), nil, zstd.SpeedDefault)
	if err != nil {
		return nil, err
	}
	return append(out, z...), nil
}

// index returns a map from name to id (the first id of a repeated name).
func (m *NameMap) index() map[string]int {
	idx := make(map[string]int, len(m.Names))
	for i, n := range m.Names {
		if _, dup := idx[n]; !dup {
			idx[n] = i
		}
	}
	return idx
}
