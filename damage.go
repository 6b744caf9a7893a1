package bpx

import (
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"io"
	"sync"
	"sync/atomic"
)

// sectionState is what a Reader learns about one section as it reads it:
// whether its content was found damaged, and the digests of its stored
// bytes once OpenVerified checked it whole.
type sectionState struct {
	damage   atomic.Pointer[damage]
	sums     atomic.Pointer[[][sha256.Size]byte] // see OpenVerified
	verifyMu sync.Mutex                          // one first pass of OpenVerified at a time
	decodes  atomic.Int64                        // decodes that read stored bytes, for tests
}

// damage remembers a decode of a section that failed on its content (a
// corrupt stream, a wrong size or checksum), so that later reads of the
// same stored bytes fail at once instead of decoding them again up to the
// failure: a loader that asks for each of the 70 objects after the damage
// would otherwise decode the section 70 times. The stored bytes the
// failed decode read are identified by their CRC-32C: a read checks them
// again (reading is far cheaper than decoding, and CRC-32C runs at tens
// of GB/s) and forgets the damage if they changed. A collision can only
// make a read fail, never pass, so a stronger digest would buy nothing.
// Failures of the source itself (a network error, a read cut short) are
// not remembered.
type damage struct {
	err    error
	stored int64 // the stored bytes read, from the section's start
	sum    uint32
	at     int64 // the bytes decoded before the failure
}

// noteDamage remembers err, a failure after reading stored bytes of the
// section and decoding at bytes, if it is one of the content.
func (s *Section) noteDamage(err error, stored, at int64) {
	if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrChecksum) {
		return
	}
	sum, err2 := s.storedSum(stored)
	if err2 != nil {
		return
	}
	s.st.damage.Store(&damage{err: err, stored: stored, sum: sum, at: at})
}

// knownDamage returns the remembered damage of the section if its stored
// bytes are still those that failed, nil if there is none (forgetting
// damage whose bytes changed), or the error of reading them.
func (s *Section) knownDamage() (*damage, error) {
	d := s.st.damage.Load()
	if d == nil {
		return nil, nil
	}
	sum, err := s.storedSum(d.stored)
	if err != nil {
		return nil, err
	}
	if sum != d.sum {
		s.st.damage.CompareAndSwap(d, nil)
		return nil, nil
	}
	return d, nil
}

// storedSum returns the CRC-32C of the first n stored bytes of the section
// (none for n <= 0: io.NewSectionReader reads without end for a negative
// length).
func (s *Section) storedSum(n int64) (uint32, error) {
	off, size, err := s.storedRange()
	if err != nil {
		return 0, err
	}
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(s.rd.r, off, max(0, min(n, size)))); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// readTrap passes reads of stored bytes through to r, noting how far they
// reached and whether any failed.
type readTrap struct {
	r      io.ReaderAt
	base   int64 // the offset in r of the section's stored bytes
	end    int64 // the end of the furthest read
	failed bool
	err    error         // the first error of r
	reads  *atomic.Int64 // counts the decodes that read at least once
}

func (t *readTrap) ReadAt(p []byte, off int64) (int, error) {
	if t.reads != nil {
		t.reads.Add(1)
		t.reads = nil
	}
	n, err := t.r.ReadAt(p, off)
	t.end = max(t.end, off+int64(n))
	if err != nil && (err != io.EOF || n < len(p)) && !t.failed {
		t.failed, t.err = true, err
	}
	return n, err
}
