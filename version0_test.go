package bpx

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"
)

// v0Section is one section of a hand-made version-0 draft file.
type v0Section struct {
	typ, flags uint8
	stored     []byte
}

// buildVersion0 writes a container in the layout of the version-0 draft
// text: 32-byte header (TypeExt 64 bits), 16-byte section headers, FileSize
// = total size minus the header, CRC-32 over everything but the checksum.
func buildVersion0(typ uint8, ext [8]byte, secs []v0Section) []byte {
	off := uint64(v0MainHeaderSize + v0SectionHeaderSize*len(secs))
	b := make([]byte, off)
	copy(b, "BPX")
	b[3] = typ
	binary.LittleEndian.PutUint32(b[16:], uint32(len(secs)))
	copy(b[24:32], ext[:])
	var data []byte
	for i, s := range secs {
		e := b[v0MainHeaderSize+i*v0SectionHeaderSize:]
		binary.LittleEndian.PutUint64(e[0:], off+uint64(len(data)))
		binary.LittleEndian.PutUint32(e[8:], uint32(len(s.stored)))
		e[12], e[13] = s.typ, s.flags
		data = append(data, s.stored...)
	}
	b = append(b, data...)
	binary.LittleEndian.PutUint64(b[8:], uint64(len(b)-v0MainHeaderSize))
	h := crc32.NewIEEE()
	h.Write(b[:4])
	h.Write(b[8:])
	binary.LittleEndian.PutUint32(b[4:], h.Sum32())
	return b
}

func TestVersion0Draft(t *testing.T) {
	text := []byte("a version-0 asset registry")
	b := buildVersion0('P', [8]byte{2, 0, 0, 0, 1}, []v0Section{
		{1, 0, text},
		{2, v0FlagZlib, zlibBytes(t, payload)},
		{3, 0, nil},
	})
	r := open(t, b)
	require.Equal(t, uint32(0), r.Header.Version)
	require.Equal(t, uint8('P'), r.Header.Type)
	require.Equal(t, [16]byte{2, 0, 0, 0, 1}, r.Header.TypeExt)
	require.Len(t, r.Sections, 3)
	got, err := r.Sections[0].Data()
	require.NoError(t, err)
	require.Equal(t, text, got)
	require.Equal(t, uint8(FlagZlib), r.Sections[1].Flags)
	got, err = r.Sections[1].Data()
	require.NoError(t, err)
	require.Equal(t, payload, got)
	got, err = r.Sections[2].Data()
	require.NoError(t, err)
	require.Empty(t, got)

	// the whole-file CRC catches a flipped content byte
	bad := append([]byte{}, b...)
	bad[len(bad)-1] ^= 1
	_, err = NewReader(bytes.NewReader(bad), int64(len(bad)))
	require.ErrorIs(t, err, ErrChecksum)
	// the zlib section stays bounded by the section size limit
	r = open(t, b, WithMaxSectionSize(100))
	_, err = r.Sections[1].Data()
	require.ErrorIs(t, err, ErrTooLarge)
	// truncated table
	_, err = NewReader(bytes.NewReader(b[:40]), 40)
	require.ErrorIs(t, err, ErrFormat)
}
