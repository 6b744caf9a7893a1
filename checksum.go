package bpx

import (
	"encoding/binary"
	"hash/crc32"
)

// WeakChecksum returns the BPX "weak" checksum of p added to sum: the sum of
// all bytes taken as unsigned, modulo 2^32. Start with sum = 0.
func WeakChecksum(sum uint32, p []byte) uint32 {
	// Eight bytes at a time: the bytes at even and odd positions are added
	// into four 16-bit lanes, which cannot overflow within 128 words.
	const mask = 0x00FF00FF00FF00FF
	for len(p) >= 8 {
		n := min(len(p)/8, 128)
		var acc uint64
		for i := 0; i < n; i++ {
			v := binary.LittleEndian.Uint64(p[i*8:])
			acc += v&mask + (v>>8)&mask
		}
		p = p[n*8:]
		sum += uint32(acc&0xFFFF + acc>>16&0xFFFF + acc>>32&0xFFFF + acc>>48)
	}
	for _, b := range p {
		sum += uint32(b)
	}
	return sum
}

// ReferenceCRC32 returns the CRC32 variant that the reference BPX SDK
// (BPX-rs) writes for flag 0x04. It is not the standard CRC-32: its table is
// built with a single shift/XOR step per entry. Every CRC-flagged section
// written by the reference uses it; ReferenceCRC32([]byte("123456789")) is
// 0xFF124790 where the standard CRC-32 is 0xCBF43926.
func ReferenceCRC32(p []byte) uint32 { return UpdateReferenceCRC32(0, p) }

// StandardCRC32 returns the standard IEEE CRC-32 (as hash/crc32), which this
// package also accepts for flag 0x04 and writes on request.
func StandardCRC32(p []byte) uint32 { return crc32.ChecksumIEEE(p) }
