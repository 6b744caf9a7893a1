package pack

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// SectionModTimes is the type of the section that holds the modification
// time of every object, in object table order: what fs.FileInfo.ModTime
// returns for the package's files (for a game's hot reload, or
// http.FileServerFS's Last-Modified), and what Unpack gives the files it
// writes. The Writer and the Editor add it, after the object digests,
// when an object has a time: AddFS records its files' times, Create and
// CreateSized none; a package whose objects have no time has no such
// section. Other readers, the reference SDK among them, look
// sections up by type and pass over it.
//
// Layout, little-endian:
//
//	offset size
//	0      1     version: 1 = Unix times in seconds
//	1      3     reserved, 0
//	4      4     CRC-32C of the object table section's decoded bytes
//	8      4     number of objects n
//	12     8·n   each object's modification time, seconds since
//	             1970-01-01 UTC (int64; -62135596800, year 1, for none)
//
// The times count only for the object table they were written with, as
// the object digests do (see SectionDigests): a tool that edits the
// package without knowing this section, and copies it as it is, leaves a
// table whose CRC-32C no longer matches, and readers then give every
// object the zero time, as for a package without the section. So does a
// malformed section. Times are no part of an object's bytes: nothing
// checks them against anything else, and no read depends on them.
const SectionModTimes = 0xF4

const (
	modTimesVersion    = 1
	modTimesHeaderSize = 12
)

// noTime is the stored time of an object without one: time.Time{}.Unix().
var noTime = time.Time{}.Unix()

// unixTime returns t as SectionModTimes stores it.
func unixTime(t time.Time) int64 {
	if t.IsZero() {
		return noTime
	}
	return t.Unix()
}

// marshalModTimes returns the SectionModTimes bytes of times for the
// object table table.
func marshalModTimes(table []byte, times []int64) []byte {
	b := tableListHeader(modTimesVersion, table, len(times), 8)
	for _, t := range times {
		b = binary.LittleEndian.AppendUint64(b, uint64(t))
	}
	return b
}

// parseModTimes returns the times of SectionModTimes bytes b written for
// an object table of n objects whose CRC-32C is tableSum, or why they
// cannot be used.
func parseModTimes(b []byte, n int, tableSum uint32) ([]int64, error) {
	if want := modTimesHeaderSize + 8*int64(n); int64(len(b)) != want {
		return nil, fmt.Errorf("%d bytes, not the %d of %d objects' times", len(b), want, n)
	}
	if b[0] != modTimesVersion || b[1]|b[2]|b[3] != 0 || binary.LittleEndian.Uint32(b[8:]) != uint32(n) {
		return nil, fmt.Errorf("not a list of %d Unix times (version %d)", n, b[0])
	}
	if binary.LittleEndian.Uint32(b[4:]) != tableSum {
		return nil, fmt.Errorf("written for another object table (edited by a tool that does not know it)")
	}
	times := make([]int64, n)
	for i := range times {
		times[i] = int64(binary.LittleEndian.Uint64(b[modTimesHeaderSize+8*i:]))
	}
	return times, nil
}

// modTimeState is what a Package knows of its objects' times, loaded at
// the first ModTime that asks.
type modTimeState struct {
	once  sync.Once
	times []int64 // nil: none usable
}

// modTime returns the modification time of object i: its time in
// SectionModTimes, or the zero time.
func (p *Package) modTime(i int) time.Time {
	if t := p.modTimes(); i >= 0 && i < len(t) && t[i] != noTime {
		return time.Unix(t[i], 0)
	}
	return time.Time{}
}

// modTimes returns the usable times of the objects, or nil.
func (p *Package) modTimes() []int64 {
	p.load() // its error leaves no objects, hence no times
	p.mtimes.once.Do(func() { p.mtimes.times = p.loadModTimes() })
	return p.mtimes.times
}

// loadModTimes reads and checks SectionModTimes, if the package has one
// whose decoded size is that of its objects' times.
func (p *Package) loadModTimes() []int64 {
	s := p.Reader.FindSection(SectionModTimes)
	if p.Revision != 2 || s == nil || len(p.objects) == 0 {
		return nil
	}
	if size, ok := s.DecodedSize(); !ok || size != modTimesHeaderSize+8*int64(len(p.objects)) {
		return nil
	}
	b, err := s.Data()
	if err != nil {
		return nil
	}
	times, err := parseModTimes(b, len(p.objects), p.tableSum)
	if err != nil {
		return nil
	}
	return times
}

// anyTime reports whether one of times is a time.
func anyTime(times []int64) bool {
	for _, t := range times {
		if t != noTime {
			return true
		}
	}
	return false
}
