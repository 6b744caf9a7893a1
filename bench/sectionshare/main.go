// Command sectionshare compares two packages as a pull from OLD to NEW
// would (issue 34): the sections of NEW whose stored bytes OLD holds too
// (by SHA-256), the stored bytes of those it does not, and the objects
// that differ (changed, added, removed, by CRC-32C of their bytes), with
// their sizes. ideal_bytes is what issue 34's goal 4 measures a pull
// against: the stored size of NEW's changed and added objects (an
// object's share of its section's stored bytes, its size times the
// section's stored/decoded ratio) plus every section that is not data
// (tables, digests, signature) and the header and section table. It
// prints one line of "key value" pairs.
//
// Usage: go run ./bench/sectionshare OLD.bpx NEW.bpx
package main

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/gobpx/bpx/types/pack"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sectionshare OLD.bpx NEW.bpx")
		os.Exit(2)
	}
	oldP, newP := open(os.Args[1]), open(os.Args[2])
	have := map[[32]byte]bool{}
	for _, s := range oldP.Reader.Sections {
		have[storedSum(s.OpenRaw())] = true
	}
	var shared, sections int
	var fetch, total int64
	for _, s := range newP.Reader.Sections {
		sections++
		n := int64(s.StoredSize())
		total += n
		if have[storedSum(s.OpenRaw())] {
			shared++
		} else {
			fetch += n
		}
	}
	oldObjs := objects(oldP)
	var changed, added, removed int
	var changedBytes int64
	secs := newP.Reader.Sections
	ideal := float64(32 + 24*len(secs))
	for _, s := range secs {
		if s.Type != pack.SectionData {
			ideal += float64(s.StoredSize())
		}
	}
	share := func(o pack.Object) float64 {
		if int(o.Start) >= len(secs) || secs[o.Start].USize == 0 {
			return float64(o.Size)
		}
		s := secs[o.Start]
		return float64(o.Size) * float64(s.StoredSize()) / float64(s.USize)
	}
	newNames := map[string]bool{}
	newObjs := objects(newP)
	for _, obj := range newP.Objects() {
		name, sum := obj.Name, newObjs[obj.Name]
		if newNames[name] {
			continue
		}
		newNames[name] = true
		o, ok := oldObjs[name]
		switch {
		case !ok:
			added++
			changedBytes += sum.size
			ideal += share(obj)
		case o.crc != sum.crc || o.size != sum.size:
			changed++
			changedBytes += sum.size
			ideal += share(obj)
		}
	}
	for name := range oldObjs {
		if !newNames[name] {
			removed++
		}
	}
	fmt.Printf("sections %d shared %d fetch_bytes %d total_bytes %d changed %d added %d removed %d changed_object_bytes %d ideal_bytes %.0f\n",
		sections, shared, fetch, total, changed, added, removed, changedBytes, ideal)
}

type objSum struct {
	size int64
	crc  uint32
}

// objects returns the CRC-32C and size of every file of p.
func objects(p *pack.Package) map[string]objSum {
	out := map[string]objSum{}
	for i, o := range p.Objects() {
		r, err := p.OpenObject(i)
		if err != nil {
			fail(err)
		}
		h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
		if _, err := io.Copy(h, r); err != nil {
			fail(err)
		}
		r.Close()
		out[o.Name] = objSum{int64(o.Size), h.Sum32()}
	}
	return out
}

func storedSum(r io.Reader) [32]byte {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		fail(err)
	}
	return [32]byte(h.Sum(nil))
}

func open(name string) *pack.Package {
	p, err := pack.Open(name)
	if err != nil {
		fail(err)
	}
	if err := p.LoadTables(); err != nil {
		fail(err)
	}
	return p
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sectionshare:", err)
	os.Exit(1)
}
