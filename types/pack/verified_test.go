package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// Issue 31: every byte a reader returns is verified, on every read path:
// sections streamed because they are too large for the cache, raw
// sections read in place, and objects read again after their section was
// evicted and its stored bytes changed.

// readChecked reads the objects of p whose bytes lie in section sec (all
// objects when sec < 0) and fails the test for any that returns bytes
// other than want's with a nil error. It returns how many failed.
func readChecked(t *testing.T, p *Package, sec int, want fstest.MapFS) (failed int) {
	t.Helper()
	for i, o := range p.Objects() {
		if sec >= 0 && !touches(t, p, i, sec) {
			continue
		}
		r, err := p.OpenObject(i)
		if err != nil {
			failed++
			continue
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			failed++
			continue
		}
		if !bytes.Equal(got, want[o.Name].Data) {
			at := 0
			for at < len(got) && at < len(want[o.Name].Data) && got[at] == want[o.Name].Data[at] {
				at++
			}
			t.Fatalf("%s: wrong bytes (from byte %d of %d) with a nil error", o.Name, at, len(got))
		}
	}
	return failed
}

// touches reports whether object i has bytes in section sec.
func touches(t *testing.T, p *Package, i, sec int) bool {
	segs, err := p.segments(&p.objects[i])
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range segs {
		if sg.sec == sec {
			return true
		}
	}
	return false
}

// withoutDigests spoils the digest section of package b (one stored byte
// changed), so that readers cannot use the object digests and fall back
// on section checksums, as for a package of another writer.
func withoutDigests(t *testing.T, b []byte) []byte {
	t.Helper()
	p := openBytes(t, b)
	ds := p.Reader.FindSection(SectionDigests)
	if ds == nil {
		t.Fatal("no digest section")
	}
	b = bytes.Clone(b)
	b[ds.Pointer+uint64(ds.StoredSize())-1] ^= 0x55
	if p := openBytes(t, b); p.digests() != nil {
		t.Fatal("digests still usable")
	}
	return b
}

// setSectionChecksum writes sum as section i's checksum into package b and
// fixes the header checksum, so that only the section's check fails.
func setSectionChecksum(t *testing.T, b []byte, i int, sum uint32) []byte {
	t.Helper()
	b = bytes.Clone(b)
	p := openBytes(t, b)
	off := bpx.MainHeaderSize + i*bpx.SectionHeaderSize
	binary.LittleEndian.PutUint32(b[off+16:], sum)
	table := b[bpx.MainHeaderSize : bpx.MainHeaderSize+len(p.Reader.Sections)*bpx.SectionHeaderSize]
	binary.LittleEndian.PutUint32(b[4:], bpx.HeaderChecksum(b, table))
	return b
}

// busiestSection returns the data section holding the most objects.
func busiestSection(p *Package) int {
	count := map[uint32]int{}
	best := -1
	for _, o := range p.Objects() {
		count[o.Start]++
		if best < 0 || count[o.Start] > count[uint32(best)] {
			best = int(o.Start)
		}
	}
	return best
}

var compressions = []bpx.Compression{bpx.CompressXZ, bpx.CompressZlib, bpx.CompressNone}

// WithOptions combines opts into one Option, for tests.
func WithOptions(opts ...Option) Option {
	return func(c *config) error {
		for _, o := range opts {
			if err := o(c); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestStreamedSectionsVerified: sections too large for the cache (streamed
// when compressed, read in place when raw) return no byte that differs
// from what was written: one stored byte changed anywhere in a section
// makes the reads that cover it fail, with the object digests and
// without them.
func TestStreamedSectionsVerified(t *testing.T) {
	m, _ := sourceTree(3000)
	flips := 39
	if testing.Short() {
		flips = 9
	}
	k := testKey(t, 3, "k")
	for _, c := range compressions {
		for _, kind := range []string{"digests", "no-digests", "signed"} {
			t.Run(fmt.Sprintf("%v/%s", c, kind), func(t *testing.T) {
				digests := kind != "no-digests"
				var good []byte
				opts := []Option{WithCacheSize(2 << 20)}
				switch kind {
				case "signed":
					good = pkgBytes(t, m, WithCompression(c), WithSigningKey(k))
					opts = append(opts, WithTrustedKeys(ring(k)))
				case "no-digests":
					good = withoutDigests(t, pkgBytes(t, m, WithCompression(c)))
				default:
					good = pkgBytes(t, m, WithCompression(c))
				}
				opt := WithOptions(opts...)
				p := openBytes(t, good, opt)
				sec := busiestSection(p)
				s := p.Reader.Sections[sec]
				if p.accessMode(s) == accessCached {
					t.Fatalf("section %d (%d bytes) is cached: the test needs it streamed", sec, s.USize)
				}
				if n := readChecked(t, p, sec, m); n != 0 {
					t.Fatalf("%d objects of the undamaged package fail", n)
				}
				failed := 0
				for k := range flips {
					bad := bytes.Clone(good)
					bad[s.Pointer+uint64(k)*uint64(s.StoredSize())/uint64(flips)+3] ^= 0x20
					p, err := NewReader(bytes.NewReader(bad), int64(len(bad)), opt)
					if err != nil { // a chunk the tables share, checked at open
						failed++
						continue
					}
					failed += readChecked(t, p, sec, m)
				}
				if failed == 0 {
					t.Fatal("no read failed: the damage went unseen")
				}
				// A wrong checksum in the section's header: with digests
				// the objects are checked on their own, without them the
				// section's checksum must fail every object in it.
				if kind == "signed" {
					return // the header is signed: a changed checksum fails to open
				}
				bad := setSectionChecksum(t, good, sec, s.Checksum^1)
				n := readChecked(t, openBytes(t, bad, opt), sec, m)
				if !digests && n == 0 {
					t.Fatal("a wrong section checksum went unseen")
				}
			})
		}
	}
}

// TestSpanningObjectVerified: an object that spans sections too large for
// the cache fails where a stored byte of a section it spans changed, even
// near the section's end, beyond the object's bytes in it.
func TestSpanningObjectVerified(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, 200<<10)
	for i := range big {
		big[i] = "abcdefgh"[rnd.IntN(8)]
	}
	m := fstest.MapFS{"a.txt": {Data: []byte("first")}, "big.bin": {Data: big}, "z.txt": {Data: []byte("last")}}
	for _, c := range compressions {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			good := pkgBytes(t, m, WithCompression(c), WithSectionSize(32<<10))
			opt := WithCacheSize(100 << 10)
			p := openBytes(t, good, opt)
			if n := readChecked(t, p, -1, m); n != 0 {
				t.Fatalf("%d objects of the undamaged package fail", n)
			}
			i := indexOfName(p, "big.bin")
			segs, err := p.segments(&p.objects[i])
			if err != nil || len(segs) < 4 {
				t.Fatalf("big.bin: %d segments, %v", len(segs), err)
			}
			for _, sg := range segs[:len(segs)-1] {
				if sg.mode == accessCached {
					t.Fatalf("section %d is cached: the test needs it streamed", sg.sec)
				}
			}
			s := p.Reader.Sections[segs[2].sec]
			bad := bytes.Clone(good)
			bad[s.Pointer+uint64(s.StoredSize())-30] ^= 0x01
			if n := readChecked(t, openBytes(t, bad, opt), -1, m); n == 0 {
				t.Fatal("the damage went unseen")
			}
		})
	}
}

func indexOfName(p *Package, name string) int {
	for i, o := range p.Objects() {
		if o.Name == name {
			return i
		}
	}
	return -1
}

// TestRereadVerified: an object read once, whose section is then evicted
// and whose stored bytes change, fails when it is read again, as it does
// from a fresh Package (a server, a proxy or a file rewritten in place
// may serve good bytes first and others later).
func TestRereadVerified(t *testing.T) {
	m, names := sourceTree(400)
	for _, c := range compressions {
		for _, secSize := range []int64{16 << 10, DefaultSectionSize} {
			t.Run(fmt.Sprintf("%v/%d", c, secSize), func(t *testing.T) {
				b := pkgBytes(t, m, WithCompression(c), WithSectionSize(secSize))
				p := openBytes(t, b, WithCacheSize(128<<10))
				first := p.Objects()[0]
				if first.Name != names[0] {
					t.Fatalf("first object %s", first.Name)
				}
				got, err := fs.ReadFile(p, first.Name)
				if err != nil || !bytes.Equal(got, m[first.Name].Data) {
					t.Fatalf("first read: %v", err)
				}
				// Evict: read every other object.
				for _, o := range p.Objects()[1:] {
					if _, err := fs.ReadFile(p, o.Name); err != nil {
						t.Fatal(err)
					}
				}
				if CachedSection(p, int(first.Start)) || cachedObject(p, &first) {
					t.Fatalf("section %d still cached", first.Start)
				}
				s := p.Reader.Sections[first.Start]
				at := s.Pointer + uint64(first.Offset)
				if s.Compressed() {
					at = s.Pointer + uint64(s.StoredSize())/2
				}
				b[at] ^= 0x20 // p reads b in place
				got, err = fs.ReadFile(p, first.Name)
				if err == nil && !bytes.Equal(got, m[first.Name].Data) {
					t.Fatalf("second read: %q..., nil error", got[:8])
				}
				if !s.Compressed() && err == nil {
					t.Fatal("second read: the changed byte went unseen")
				}
			})
		}
	}
}

// TestCacheBudgetHoldsPartialSections: sections decoded in part keep their
// decoders, which the cache counts in its budget: reading one object of
// each of many small sections in random order holds the heap near the
// budget, not a decoder per section.
func TestCacheBudgetHoldsPartialSections(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 20000 {
		m[fmt.Sprintf("d/%05d.txt", i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "object %d: %s\n", i, bytes.Repeat([]byte{byte('a' + i%26)}, 80))}
	}
	b := pkgBytes(t, m, WithSectionSize(4<<10), WithMaxSections(0))
	const budget = 2 << 20
	p := openBytes(t, b, WithCacheSize(budget))
	first := map[uint32]int{} // section: its first object
	for i, o := range p.Objects() {
		if _, ok := first[o.Start]; !ok {
			first[o.Start] = i
		}
	}
	if len(first) < 300 {
		t.Fatalf("%d data sections", len(first))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, i := range first {
		if _, err := p.ReadObject(i); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if grown > 2*budget+(2<<20) {
		t.Fatalf("heap grew by %d KiB reading one object of each of %d sections, with a cache budget of %d KiB", grown>>10, len(first), budget>>10)
	}
	runtime.KeepAlive(p)
}

// TestDamagedSectionRemembered: the objects after the damage in a section
// fail, and fail the same way when read again (package bpx's
// TestDamageRemembered checks that the section is not decoded again).
func TestDamagedSectionRemembered(t *testing.T) {
	m, _ := sourceTree(400)
	for _, digests := range []bool{true, false} {
		t.Run(fmt.Sprint("digests=", digests), func(t *testing.T) {
			good := pkgBytes(t, m)
			if !digests {
				good = withoutDigests(t, good)
			}
			p := openBytes(t, good)
			sec := busiestSection(p)
			s := p.Reader.Sections[sec]
			bad := bytes.Clone(good)
			bad[s.Pointer+uint64(s.StoredSize())/2] ^= 0x20
			p = openBytes(t, bad)
			errs := map[int]error{}
			for i, o := range p.Objects() {
				if int(o.Start) != sec {
					continue
				}
				if _, err := p.ReadObject(i); err != nil {
					if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) {
						t.Fatalf("%s: %v", o.Name, err)
					}
					errs[i] = err
				}
			}
			if len(errs) < 10 {
				t.Fatalf("%d objects failed", len(errs))
			}
			for i, o := range p.Objects() {
				if int(o.Start) != sec {
					continue
				}
				if _, err := p.ReadObject(i); (err == nil) != (errs[i] == nil) {
					t.Fatalf("%s: %v, then %v", o.Name, errs[i], err)
				}
			}
		})
	}
}

// TestVerifySectionStreamedDigests: VerifySection checks the digests of
// the objects of a section too large for the cache, which readers check
// on their own: a wrong digest under a right section checksum fails both.
func TestVerifySectionStreamedDigests(t *testing.T) {
	m, _ := sourceTree(3000)
	good := pkgBytes(t, m, WithCompression(bpx.CompressNone), WithChecksum(bpx.ChecksumNone))
	opt := WithCacheSize(2 << 20)
	p := openBytes(t, good, opt)
	sec := busiestSection(p)
	s := p.Reader.Sections[sec]
	if p.accessMode(s) == accessCached {
		t.Fatal("section cached: the test needs it streamed")
	}
	if err := p.VerifySection(sec); err != nil {
		t.Fatal(err)
	}
	var victim Object
	for _, o := range p.Objects() {
		if int(o.Start) == sec && uint64(o.Offset)+o.Size < uint64(s.USize)/2 {
			victim = o
		}
	}
	bad := bytes.Clone(good)
	bad[s.Pointer+uint64(victim.Offset)] ^= 0x20 // no section checksum to fail
	p = openBytes(t, bad, opt)
	if err := p.VerifySection(sec); !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("VerifySection: %v", err)
	}
	if _, err := p.ReadObject(victim.Index); !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("ReadObject: %v", err)
	}
}
