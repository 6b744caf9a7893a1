package xzdec

import (
	"encoding/binary"
	"hash/crc64"
	"sync"
)

// crc64Tables are the tables of CRC-64/ECMA (xz's default check) by
// slicing-by-16: 16 bytes a step, each through a table of its own, where
// hash/crc64 takes 8: 1.2x-1.3x its speed (BenchmarkCRC64), 1.017x on
// decoding an xz -6 tar (bench/lzma-vs-xz.sh's), where the check cost
// this decoder 7% of its time and liblzma, with carry-less multiplies,
// much less. Built on first use: 32 KiB.
var crc64Tables = sync.OnceValue(func() *[16][256]uint64 {
	t := new([16][256]uint64)
	t[0] = *crc64.MakeTable(crc64.ECMA)
	for i := range 256 {
		c := t[0][i]
		for k := 1; k < 16; k++ {
			c = t[0][c&0xFF] ^ c>>8
			t[k][i] = c
		}
	}
	return t
})

// crc64Update returns the CRC-64/ECMA of p after crc, as crc64.Update
// does with crc64.MakeTable(crc64.ECMA).
func crc64Update(crc uint64, p []byte) uint64 {
	t := crc64Tables()
	crc = ^crc
	for len(p) >= 16 {
		a := binary.LittleEndian.Uint64(p) ^ crc
		b := binary.LittleEndian.Uint64(p[8:])
		crc = t[15][a&0xFF] ^ t[14][a>>8&0xFF] ^ t[13][a>>16&0xFF] ^ t[12][a>>24&0xFF] ^
			t[11][a>>32&0xFF] ^ t[10][a>>40&0xFF] ^ t[9][a>>48&0xFF] ^ t[8][a>>56] ^
			t[7][b&0xFF] ^ t[6][b>>8&0xFF] ^ t[5][b>>16&0xFF] ^ t[4][b>>24&0xFF] ^
			t[3][b>>32&0xFF] ^ t[2][b>>40&0xFF] ^ t[1][b>>48&0xFF] ^ t[0][b>>56]
		p = p[16:]
	}
	for _, v := range p {
		crc = t[0][byte(crc)^v] ^ crc>>8
	}
	return ^crc
}
