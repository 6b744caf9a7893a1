package bpx

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// Layout of the version-0 draft (bpx-format-version0-draft.txt): a 32-byte
// main header with 8 bytes of TypeExt, 16-byte section headers holding one
// size, flag 0x2 meaning zlib, and a CRC-32 over the whole file.
const (
	v0MainHeaderSize    = 32
	v0SectionHeaderSize = 16
	v0FlagZlib          = 0x2
)

// initVersion0 reads a version-0 draft container. Such files are read-only.
//
// The draft's header checksum is a CRC-32 (IEEE) of "the header except the
// Chksum field and the file content after compression": this package takes
// that to be every byte of the file except bytes 4..7. Verifying it reads the
// whole file once at open (skip it with SkipChecksums). Sections carry their
// stored size only, so the uncompressed size of a zlib section is unknown:
// it is bounded by WithMaxSectionSize instead, and Section.USize is 0.
func (rd *Reader) initVersion0(hb []byte) error {
	rd.v0 = true
	if rd.size < v0MainHeaderSize {
		return &FormatError{Offset: rd.size, Section: -1, What: "version-0 main header truncated"}
	}
	h := MainHeader{
		Type:       hb[3],
		Checksum:   binary.LittleEndian.Uint32(hb[4:]),
		FileSize:   binary.LittleEndian.Uint64(hb[8:]),
		SectionNum: binary.LittleEndian.Uint32(hb[16:]),
		Version:    0,
	}
	copy(h.TypeExt[:8], hb[24:32])
	rd.Header = h
	table, err := rd.readTable(v0MainHeaderSize, v0SectionHeaderSize)
	if err != nil {
		return err
	}
	if !rd.cfg.skipChecksums {
		if sum, err := rd.version0Checksum(); err != nil {
			return err
		} else if sum != h.Checksum {
			return fmt.Errorf("reading as a version-0 draft file (Version is 0): %w",
				&ChecksumError{Section: -1, Expected: h.Checksum, Actual: sum})
		}
	}
	num := len(table) / v0SectionHeaderSize
	secs := make([]Section, num)
	rd.Sections = make([]*Section, num)
	for i := range secs {
		e := table[i*v0SectionHeaderSize:]
		size := binary.LittleEndian.Uint32(e[8:])
		sh := SectionHeader{Pointer: binary.LittleEndian.Uint64(e[0:]), CSize: size, USize: size, Type: e[12]}
		known := true
		if e[13]&v0FlagZlib != 0 {
			sh.Flags, sh.USize, known = FlagZlib, 0, false
		}
		secs[i] = Section{SectionHeader: sh, Index: i, rd: rd, usizeKnown: known}
		rd.Sections[i] = &secs[i]
	}
	return nil
}

// version0Checksum computes the draft's whole-file CRC-32, skipping the
// checksum field itself.
func (rd *Reader) version0Checksum() (uint32, error) {
	var head [4]byte
	if err := readFullAt(rd.r, head[:], 0); err != nil {
		return 0, &FormatError{Offset: 0, Section: -1, What: "reading header", Err: err}
	}
	h := crc32.NewIEEE()
	h.Write(head[:])
	if _, err := io.Copy(h, io.NewSectionReader(rd.r, 8, rd.size-8)); err != nil {
		return 0, &FormatError{Offset: 8, Section: -1, What: "reading file for the checksum", Err: err}
	}
	return h.Sum32(), nil
}
