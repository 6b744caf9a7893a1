package bpx_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
)

// writerBound is the memory bound documented on NewWriter for sections
// of s bytes compressed as c, with the given options:
//
//	memLimit + (2·conc + 1)·spool + conc·codec(c, s) + 1 MiB
func writerBound(memLimit, spool int64, conc int, c bpx.Compression, s int64) int64 {
	return memLimit + (2*int64(conc)+1)*spool + int64(conc)*codecMemory(c, s) + 1<<20
}

// codecMemory is the documented memory of one running compressor for a
// section of s bytes at the default level.
func codecMemory(c bpx.Compression, s int64) int64 {
	switch c {
	case bpx.CompressZlib:
		return 1 << 20
	case bpx.CompressXZ:
		// A window of up to 4 MiB, its 4 MiB hash chain and a 512 KiB
		// hash table, whatever the section size.
		return 8<<20 + 512<<10
	}
	return 0
}

// allocatedBy returns the bytes allocated on the heap while f runs: an
// upper bound of how much the heap grew at its peak.
func allocatedBy(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestWriterMemoryBound writes one section of 1, 4, 12 and 16 MiB (the
// sizes around the xz encoder's 4 MiB window) with a 1 MiB spool
// threshold and checks that everything allocated meanwhile stays within
// the bound documented on NewWriter. Spooled bodies used to be read back
// into a bytes.Buffer that doubled: a 12 MiB xz section allocated 36 MiB.
func TestWriterMemoryBound(t *testing.T) {
	if bpx.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop objects at random, so allocations vary")
	}
	const spool, memLimit = 1 << 20, 1 << 20
	chunk := textData(256<<10, 9)
	for _, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressZlib, bpx.CompressXZ} {
		for _, mib := range []int64{1, 4, 12, 16} {
			size := mib << 20
			if testing.Short() && mib > 4 && c != bpx.CompressXZ {
				continue
			}
			dir := t.TempDir()
			var out countingDiscard
			var err error
			got := allocatedBy(func() {
				w := bpx.NewWriter(&out, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(spool),
					bpx.WithMemoryLimit(memLimit), bpx.WithConcurrency(1))
				sw, e := w.CreateSection(1, bpx.SectionOptions{Compression: c, Checksum: bpx.ChecksumCRC32})
				if e != nil {
					err = e
					return
				}
				for range size / int64(len(chunk)) {
					if _, err = sw.Write(chunk); err != nil {
						return
					}
				}
				err = w.Close()
			})
			if err != nil {
				t.Fatalf("%v, %d MiB: %v", c, mib, err)
			}
			bound := writerBound(memLimit, spool, 1, c, size)
			t.Logf("%v, %2d MiB section: allocated %5.1f MiB, bound %5.1f MiB", c, mib, float64(got)/(1<<20), float64(bound)/(1<<20))
			if got > bound {
				t.Errorf("%v, %d MiB section: allocated %d bytes, above the documented bound of %d", c, mib, got, bound)
			}
		}
	}
}

// TestWriterMemoryBoundMax is TestWriterMemoryBound at LevelMax, whose xz
// encoder holds up to 45.5 MiB with a 4 MiB dictionary.
func TestWriterMemoryBoundMax(t *testing.T) {
	if bpx.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop objects at random, so allocations vary")
	}
	const spool, memLimit = 1 << 20, 1 << 20
	chunk := textData(256<<10, 9)
	for _, mib := range []int64{1, 6} {
		if testing.Short() && mib > 1 {
			continue
		}
		size := mib << 20
		var out countingDiscard
		var err error
		got := allocatedBy(func() {
			w := bpx.NewWriter(&out, bpx.WithTempDir(t.TempDir()), bpx.WithSpoolThreshold(spool),
				bpx.WithMemoryLimit(memLimit), bpx.WithConcurrency(1))
			o := bpx.SectionOptions{Compression: bpx.CompressXZ, Level: bpx.LevelMax, XZDictSize: 4 << 20}
			if err = w.WriteSection(1, o, bytes.Repeat(chunk, int(size)/len(chunk))); err != nil {
				return
			}
			err = w.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
		// The section itself is given whole to WriteSection (size bytes).
		bound := memLimit + 3*spool + 45<<20 + 512<<10 + 1<<20 + size
		t.Logf("max, %d MiB section: allocated %.1f MiB, bound %.1f MiB", mib, float64(got)/(1<<20), float64(bound)/(1<<20))
		if got > bound {
			t.Errorf("max, %d MiB section: allocated %d bytes, above the documented bound of %d", mib, got, bound)
		}
	}
}
