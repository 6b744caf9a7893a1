package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// TestVerifyAll: issue 31 item 7. One changed byte in the object digests
// section: the structure checks out and every read succeeds (the digests
// are then ignored), but VerifyAll reports it, as bpx verify does.
func TestVerifyAll(t *testing.T) {
	m, _ := sourceTree(300)
	good := pkgBytes(t, m)
	if err := openBytes(t, good).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a good package: %v", err)
	}
	p := openBytes(t, good)
	ds := p.Reader.FindSection(SectionDigests)
	bad := bytes.Clone(good)
	bad[ds.Pointer+uint64(ds.StoredSize())-1] ^= 0x55
	p = openBytes(t, bad)
	if err := p.VerifyStructure(); err != nil {
		t.Fatalf("VerifyStructure: %v", err)
	}
	for i := range p.Objects() {
		if _, err := p.ReadObject(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.VerifyAll(); !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrFormat) {
		t.Fatalf("VerifyAll: %v", err)
	}

	// A signed package: the bytes between sections are checked too.
	k := testKey(t, 5, "k")
	signed := pkgBytes(t, m, WithSigningKey(k))
	if err := openBytes(t, signed, WithTrustedKeys(ring(k))).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a signed package: %v", err)
	}
}

// TestVerifyAllAgreesWithCommand runs bpx verify on the same files, when
// the command can be built.
func TestVerifyAllAgreesWithCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/bpx")
	}
	bin := filepath.Join(t.TempDir(), "bpx")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/gobpx/bpx/cmd/bpx").CombinedOutput(); err != nil {
		t.Skipf("cannot build bpx: %v\n%s", err, out)
	}
	m, _ := sourceTree(300)
	good := pkgBytes(t, m)
	p := openBytes(t, good)
	ds := p.Reader.FindSection(SectionDigests)
	sec := busiestSection(p)
	s := p.Reader.Sections[sec]
	_, lying, _ := lyingIndexDigest(t)
	chunks, _ := patchChunks(t, pkgBytes(t, noiseTree(2<<20, 41)), wrongDigest(0))
	for name, b := range map[string][]byte{
		"good":    good,
		"digests": flipAt(good, ds.Pointer+uint64(ds.StoredSize())-1),
		"data":    flipAt(good, s.Pointer+uint64(s.StoredSize())/2),
		"chunks":  chunks,
		"index":   patchDigests(t, lying, func(d []byte) { d[4] ^= 1 }),
	} {
		file := filepath.Join(t.TempDir(), name+".bpx")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		lib := openBytes(t, b).VerifyAll()
		cmdErr := exec.Command(bin, "verify", "-q", file).Run()
		if (lib == nil) != (cmdErr == nil) {
			t.Errorf("%s: VerifyAll %v, bpx verify %v", name, lib, cmdErr)
		}
	}
}

func flipAt(b []byte, at uint64) []byte {
	b = bytes.Clone(b)
	b[at] ^= 0x55
	return b
}

// TestVerifyAllBlocks: issue 41. A reader of an xz section of blocks
// finds its blocks through the stream's index (bpx.Section.Blocks), whose
// check can fail where the section, decoded whole, is another problem or
// none: VerifyAll, and bpx verify, report what Blocks reports, for every
// such section.
func TestVerifyAllBlocks(t *testing.T) {
	const sec, block = 128 << 10, 16 << 10
	good := pkgBytes(t, distinctText(60, 3000, 9), WithSectionSize(sec), WithBlockSize(block))
	if err := openBytes(t, good).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a good package: %v", err)
	}
	p := openBytes(t, good)
	s := p.Reader.Sections[firstDataSection(t, p)]
	if blocks, err := s.Blocks(); err != nil || len(blocks) < 3 {
		t.Fatalf("%d blocks, %v", len(blocks), err)
	}
	// The CRC32 of the stream's index, before the 12-byte footer.
	bad := flipAt(good, s.Pointer+uint64(s.StoredSize())-12-1)
	_, want := openBytes(t, bad).Reader.Sections[s.Index].Blocks()
	if want == nil {
		t.Fatal("Blocks of the damaged section: no error")
	}
	if err := openBytes(t, bad).VerifyAll(); err == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Errorf("VerifyAll: %v; want it to report %v", err, want)
	}
}

// TestVerifyAllObjectAtSectionEnd: an object whose entry points at the
// very end of a section (Offset its size) starts in the next data section
// that holds bytes, where a reader takes it whole and checks it against
// its digest. VerifySection checked only the objects whose Start is its
// section: such an object's digest was compared with nothing, and a wrong
// one made it fail to read while VerifyAll said the package was good.
func TestVerifyAllObjectAtSectionEnd(t *testing.T) {
	m, _ := sourceTree(300)
	good := pkgBytes(t, m, WithSectionSize(4096), WithChunkDigests(false))
	p := openBytes(t, good)
	j := slices.IndexFunc(p.Objects(), func(o Object) bool {
		return o.Offset == 0 && o.Start > 0 && p.Reader.Sections[o.Start-1].Type == SectionData
	})
	if j < 0 {
		t.Fatal("no object starts a data section after another")
	}
	o := p.Objects()[j]
	prev := p.Reader.Sections[o.Start-1]
	var table []byte
	moved := replaceSection(t, good, SectionObjectTable, bpx.ChecksumWeak, func(b []byte) []byte {
		e := b[j*ObjectEntrySize:]
		binary.LittleEndian.PutUint32(e[12:], o.Start-1)
		binary.LittleEndian.PutUint32(e[16:], prev.USize)
		table = b
		return b
	})
	bad := patchDigests(t, moved, func(d []byte) {
		binary.LittleEndian.PutUint32(d[4:], objectDigest(table))
		d[digestHeaderSize+4*j] ^= 1
	})
	q := openBytes(t, bad)
	if q.digests() == nil {
		t.Fatalf("digests not used: %s", q.dig.why)
	}
	if _, err := q.ReadObject(j); !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("ReadObject(%s): %v, want ErrChecksum", o.Name, err)
	}
	if err := openBytes(t, bad).VerifyAll(); err == nil || !strings.Contains(err.Error(), o.Name) {
		t.Errorf("VerifyAll: %v; want an error naming %s", err, o.Name)
	}
	// With its digest right, it reads and verifies.
	fixed := patchDigests(t, moved, func(d []byte) { binary.LittleEndian.PutUint32(d[4:], objectDigest(table)) })
	if err := openBytes(t, fixed).VerifyAll(); err != nil {
		t.Errorf("VerifyAll of the moved entry, digest right: %v", err)
	}
}
