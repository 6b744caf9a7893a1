// Package xzfixture changes .xz streams for tests, as an attacker would:
// it imports nothing of the module, so that the root package's own tests
// can use it.
package xzfixture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// ShiftXZRecords returns b with delta bytes moved from the uncompressed
// size of record i to that of record i+1 in the index of the xz stream
// b[start:end] (a section's stored bytes), the index's CRC32 recomputed:
// the same total, data, section checksum and header, each varint keeping
// its length (pick sizes so that it does). A reader trusting the index
// alone finds every byte of block i+1 delta bytes off.
func ShiftXZRecords(t testing.TB, b []byte, start, end, i int, delta uint64) []byte {
	t.Helper()
	size := (int(binary.LittleEndian.Uint32(b[end-8:])) + 1) * 4
	idx := b[end-12-size : end-12]
	var rec []uint64
	p := 1
	n, k := binary.Uvarint(idx[p:])
	p += k
	for range 2 * n {
		v, k := binary.Uvarint(idx[p:])
		rec = append(rec, v)
		p += k
	}
	if 2*i+3 >= len(rec) || start >= end {
		t.Fatalf("records %d and %d of %d", i, i+1, n)
	}
	rec[2*i+1] -= delta
	rec[2*i+3] += delta
	enc := binary.AppendUvarint([]byte{0}, n)
	for _, v := range rec {
		enc = binary.AppendUvarint(enc, v)
	}
	if len(enc) != p {
		t.Fatalf("the records changed length: %d, not %d", len(enc), p)
	}
	out := bytes.Clone(b)
	copy(out[end-12-size:], enc)
	binary.LittleEndian.PutUint32(out[end-16:], crc32.ChecksumIEEE(out[end-12-size:end-16]))
	return out
}
