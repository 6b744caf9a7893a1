package bpx

import "hash/crc32"

// WeakChecksum returns the BPX "weak" checksum of p added to sum: the sum of
// all bytes taken as unsigned, modulo 2^32. Start with sum = 0.
func WeakChecksum(sum uint32, p []byte) uint32 {
	// Unrolled by 8: the compiler does not vectorise the plain loop.
	for len(p) >= 8 {
		sum += uint32(p[0]) + uint32(p[1]) + uint32(p[2]) + uint32(p[3]) +
			uint32(p[4]) + uint32(p[5]) + uint32(p[6]) + uint32(p[7])
		p = p[8:]
	}
	for _, b := range p {
		sum += uint32(b)
	}
	return sum
}

// refCRCTable is the table of the reference SDK's CRC32: reflected polynomial
// 0xEDB88320, but each entry built with one shift/XOR step instead of eight.
var refCRCTable = func() (t [256]uint32) {
	for i := range t {
		v := uint32(i) >> 1
		if i&1 != 0 {
			v ^= 0xEDB88320
		}
		t[i] = v
	}
	return t
}()

// UpdateReferenceCRC32 continues the reference SDK's CRC32 variant (see
// ReferenceCRC32) over p. crc is the value returned for the data so far
// (0 for none), so calls can be chained.
func UpdateReferenceCRC32(crc uint32, p []byte) uint32 {
	crc = ^crc
	t := &refCRCTable
	for _, b := range p {
		crc = (crc >> 8) ^ t[byte(crc)^b]
	}
	return ^crc
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
