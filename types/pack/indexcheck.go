package pack

import (
	"encoding/binary"

	"github.com/gobpx/bpx"
)

// The path index is a second copy of what the object table and the strings
// say, and the tables are the authority: they are what the reference SDK,
// "bpx ls", Unpack and every other reader read. An index entry is
// therefore used only after it was checked against the table row of the
// object it names (checkEntry): that row must give the entry's size,
// start section and offset, and a name equal to the entry's path. A
// well-formed index bound to the tables that names other bytes for a
// path, as a crafted file may, is then found at its first use and dropped:
// the tables answer from then on. What the check costs: when the tables
// are loaded, a comparison; when they are not (a package opened through its
// index), two small reads, the object's 20-byte row and its name (the
// index is only used over raw tables, see openPathIndex). Over HTTP both
// are range requests unless the remote cache holds them already.
//
// What the check cannot see without the tables is a name the tables repeat
// or give a directory too: the tables' fs view leaves such names out, the
// index may give one of them. Such a name is read through the index or
// not found, never read as other bytes. VerifyStructure ("bpx verify")
// compares the whole index with the tables and reports any difference,
// a missing or extra file too.

// checkEntries turns checkEntry off (false) for the tests and benchmarks
// of the index's search alone over indexes whose paths the tables do not
// hold (a hostile index of 64 KiB paths would need 640 MB of names to be
// true).
var checkEntries = true

// checkEntry checks index entry e against the object table (see above),
// returning an error matching errPathIndex when they differ.
func (p *Package) checkEntry(ix *pathIndex, e *pathEntry) error {
	if !checkEntries {
		return nil
	}
	if p.tablesReady.Load() {
		if uint64(e.obj) >= uint64(len(p.objects)) {
			return pathIndexError("%q names object %d of %d", e.name, e.obj, len(p.objects))
		}
		o := &p.objects[e.obj]
		if o.NameErr != nil || o.Name != e.name || o.Size != e.size || o.Start != e.start || o.Offset != e.offset {
			return entryMismatch(e, o.Name, o.Size, o.Start, o.Offset)
		}
		return nil
	}
	var row [ObjectEntrySize]byte
	if err := readTable(ix.table, row[:], int64(e.obj)*ObjectEntrySize); err != nil {
		return err
	}
	size := binary.LittleEndian.Uint64(row[:])
	nameOff := binary.LittleEndian.Uint32(row[8:])
	start := binary.LittleEndian.Uint32(row[12:])
	offset := binary.LittleEndian.Uint32(row[16:])
	if size != e.size || start != e.start || offset != e.offset {
		return entryMismatch(e, "", size, start, offset)
	}
	// The name, NUL-terminated: as many bytes as the path, and its end.
	if ix.names == nil {
		return pathIndexError("%q: the package has no strings section", e.name)
	}
	// The name and its NUL, compared piece by piece through a small
	// buffer: a path may be 64 KiB, and a listing checks each of its files.
	var buf [4 << 10]byte
	n := len(e.name) + 1
	for off := 0; off < n; {
		b := buf[:min(len(buf), n-off)]
		if err := readTable(ix.names, b, int64(nameOff)+int64(off)); err != nil {
			return err
		}
		name := b
		if off+len(b) == n { // the last piece holds the NUL
			if b[len(b)-1] != 0 {
				return pathIndexError("%q names object %d, whose name in the strings is longer", e.name, e.obj)
			}
			name = b[:len(b)-1]
		}
		if string(name) != e.name[off:off+len(name)] {
			return pathIndexError("%q names object %d, whose name in the strings is another", e.name, e.obj)
		}
		off += len(b)
	}
	return nil
}

// entryMismatch reports index entry e against the table row that names
// name (if known) with size bytes at start:offset.
func entryMismatch(e *pathEntry, name string, size uint64, start, offset uint32) error {
	if name != "" && name != e.name {
		return pathIndexError("%q names object %d, which the object table names %q", e.name, e.obj, name)
	}
	return pathIndexError("%q: object %d, %d bytes at %d:%d; the object table says %d bytes at %d:%d",
		e.name, e.obj, e.size, e.start, e.offset, size, start, offset)
}

// readTable reads b from the raw table section s at offset off: bytes
// beyond the section are an unusable index (it named them), a read error
// is returned as it is.
func readTable(s *bpx.Section, b []byte, off int64) error {
	if off < 0 || off+int64(len(b)) > int64(s.USize) {
		return pathIndexError("it names bytes %d to %d of section %d, which holds %d", off, off+int64(len(b)), s.Index, s.USize)
	}
	return readIndex(s, b, off)
}
