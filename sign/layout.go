package sign

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gobpx/bpx"
)

// layout is the main header and the section table of a BPX file, as
// stored.
type layout struct {
	head []byte         // the main header and the table, byte for byte
	main bpx.MainHeader // the main header
	n    int            // the number of sections
	size int64          // the file's size
}

// readLayout reads the main header and the section table of the BPX
// file r of size bytes: versions 1 and 2 only (a version-0 draft file
// cannot be signed). The table must fit in the file and hold at most
// bpx.DefaultMaxSections sections, so what it allocates is bounded by
// the file's size. The header checksum is not checked (see checksumOK).
func readLayout(r io.ReaderAt, size int64) (*layout, error) {
	if size < bpx.MainHeaderSize {
		return nil, bpx.NewFormatError(0, "a file of %d bytes is too short for a BPX header", size)
	}
	var hb [bpx.MainHeaderSize]byte
	if err := readFull(r, hb[:], 0); err != nil {
		return nil, err
	}
	if [3]byte(hb[:3]) != bpx.Magic {
		return nil, bpx.NewFormatError(0, "bad magic %q (not a BPX file)", hb[:3])
	}
	main := bpx.UnmarshalMainHeader(hb[:])
	if main.Version != bpx.Version1 && main.Version != bpx.Version2 && main.Version != bpx.VersionZstd {
		return nil, fmt.Errorf("sign: BPX version %d: only versions 1 to 3 are signed: %w", main.Version, bpx.ErrUnsupported)
	}
	n := int64(main.SectionNum)
	if room := (size - bpx.MainHeaderSize) / bpx.SectionHeaderSize; n > room {
		return nil, bpx.NewFormatError(16, "%d sections declared, the file has room for %d", n, room)
	}
	if n > bpx.DefaultMaxSections {
		return nil, fmt.Errorf("sign: %d sections (limit %d): %w", n, bpx.DefaultMaxSections, bpx.ErrTooLarge)
	}
	// The table is read in pieces, so that what is allocated grows with
	// what arrives (a server that claims millions of sections and stalls
	// holds at most twice what it sent).
	total := bpx.MainHeaderSize + n*bpx.SectionHeaderSize
	head := append(make([]byte, 0, min(total, tablePiece)), hb[:]...)
	for int64(len(head)) < total {
		k := min(total-int64(len(head)), tablePiece)
		off := int64(len(head))
		head = slices.Grow(head, int(k))[:off+k]
		if err := readFull(r, head[off:], off); err != nil {
			return nil, err
		}
	}
	return &layout{head: head, main: main, n: int(n), size: size}, nil
}

// tablePiece is how much of a section table readLayout reads at a time.
const tablePiece = 1 << 20

// sec returns section i's header.
func (l *layout) sec(i int) bpx.SectionHeader { return bpx.UnmarshalSectionHeader(l.entry(i)) }

// entry returns the 24 bytes of section i's header.
func (l *layout) entry(i int) []byte {
	off := bpx.MainHeaderSize + i*bpx.SectionHeaderSize
	return l.head[off : off+bpx.SectionHeaderSize]
}

// signed reports whether the last section is a signature section.
func (l *layout) signed() bool {
	return l.n > 0 && l.sec(l.n-1).Type == SectionType
}

// misplaced returns the index of a signature section that is not the
// last section, or -1.
func (l *layout) misplaced() int {
	for i := 0; i < l.n-1; i++ {
		if l.entry(i)[20] == SectionType {
			return i
		}
	}
	return -1
}

// checksumOK reports whether the main header's checksum is right.
func (l *layout) checksumOK() bool { return l.main.Checksum == headerChecksum(l.head) }

// buildHead returns a main header and table: main with its SectionNum,
// FileSize and Checksum set, followed by table.
func buildHead(main bpx.MainHeader, table []byte, fileSize int64) []byte {
	main.SectionNum = uint32(len(table) / bpx.SectionHeaderSize)
	main.FileSize = uint64(fileSize)
	main.Checksum = 0
	hb := main.Marshal()
	head := append(hb[:], table...)
	binary.LittleEndian.PutUint32(head[4:], headerChecksum(head))
	return head
}

// readFull reads len(p) bytes at off; a short file is io.ErrUnexpectedEOF.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &readError{fmt.Errorf("sign: reading %d bytes at offset %d: %w", len(p), off, err)}
}

// readError is an error of the io.ReaderAt, not of its bytes.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// headerChecksum is the BPX header checksum of head, the main header and
// the table.
func headerChecksum(head []byte) uint32 {
	return bpx.HeaderChecksum(head, head[bpx.MainHeaderSize:])
}
