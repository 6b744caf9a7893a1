package pack

import (
	"fmt"
	"runtime"
	"testing"
)

// overlappingPackage builds a package of n objects that each span the
// same s one-byte data sections: a small file whose objects × sections
// segments are many.
func overlappingPackage(t testing.TB, n, s int) []byte {
	t.Helper()
	secs := []rawSection{{typ: SectionObjectTable}, {typ: SectionStrings}}
	for i := range n {
		secs[0].data = append(secs[0].data, objectEntry(uint64(s), uint32(len(secs[1].data)), 2, 0)...)
		secs[1].data = fmt.Appendf(secs[1].data, "o%d\x00", i)
	}
	for range s {
		secs = append(secs, rawSection{typ: SectionData, data: []byte{1}})
	}
	return rawPackage(t, 2, [16]byte{}, secs)
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestUnpackMemoryBounded: checking before writing must not keep every
// object's segments. 300 objects over the same 1000 one-byte sections
// would hold 300 × 1000 segments (over 12 MB) for a file of about 50 KB;
// the live heap while the first file is written, and what CheckObjects
// allocates in all, must stay proportional to the file instead.
func TestUnpackMemoryBounded(t *testing.T) {
	const n, s = 300, 1000
	b := overlappingPackage(t, n, s)
	bound := 32 * uint64(len(b))
	p := openBytes(t, b)
	if len(p.Objects()) != n {
		t.Fatalf("%d objects, want %d", len(p.Objects()), n)
	}
	p.index()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := p.CheckObjects(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > bound {
		t.Errorf("CheckObjects allocated %d bytes for a %d-byte file, want at most %d", got, len(b), bound)
	}

	base := heapInUse()
	var live uint64
	var files int
	err := p.Unpack(t.TempDir(), WithUnpackConcurrency(1), WithProgress(func(name string, size int64) {
		if files == 0 {
			live = heapInUse()
		}
		files++
		if size != s {
			t.Errorf("%s: %d bytes, want %d", name, size, s)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if files != n {
		t.Errorf("%d files written, want %d", files, n)
	}
	if live > base && live-base > bound {
		t.Errorf("live heap grew by %d bytes while unpacking a %d-byte file, want at most %d", live-base, len(b), bound)
	}
}
