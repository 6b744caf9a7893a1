package pack

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// TestZstdPackage: the shipping profile (WithCompression(CompressZstd))
// writes a package of container version bpx.VersionZstd, with the
// standard CRC-32 on its sections, that reads back whole, verifies, and
// survives an edit; the same file with version 2 in its header, which a
// reader of version 2 would misread, is refused.
func TestZstdPackage(t *testing.T) {
	tree := streamTree()
	for i := range 200 {
		tree["data/units/u"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".cfg"] = &fstest.MapFile{Data: []byte(strings.Repeat("[unit]\nid=elf\nhitpoints=33\n[/unit]\n", 10+i))}
	}
	b := pkgBytes(t, tree, WithCompression(bpx.CompressZstd))
	p := openBytes(t, b)
	if p.Reader.Header.Version != bpx.VersionZstd || p.Revision != 2 {
		t.Fatalf("version %#x, revision %d", p.Reader.Header.Version, p.Revision)
	}
	var zstd, ieee int
	for _, s := range p.Reader.Sections {
		if s.Type == SectionData && s.Flags&bpx.FlagZstd != 0 {
			zstd++
		}
		if s.Flags&bpx.FlagCRC32 != 0 && s.Checksum == bpx.StandardCRC32(mustData(t, s)) {
			ieee++
		}
	}
	if zstd == 0 || ieee == 0 {
		t.Fatalf("%d zstd data sections, %d with the standard CRC-32", zstd, ieee)
	}
	for name, f := range tree {
		got, err := fs.ReadFile(p, name)
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := p.VerifyAll(); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	e := NewEditor(&out, p, WithCompression(bpx.CompressZstd))
	if w, err := e.Create("data/new.cfg"); err != nil {
		t.Fatal(err)
	} else {
		w.Write([]byte(strings.Repeat("[new]\n", 1000)))
	}
	if err := e.Remove("music/short.ogg"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	q := openBytes(t, out.Bytes())
	if q.Reader.Header.Version != bpx.VersionZstd {
		t.Errorf("edited: version %#x", q.Reader.Header.Version)
	}
	if err := q.VerifyAll(); err != nil {
		t.Fatalf("edited: %v", err)
	}
	if got, err := fs.ReadFile(q, "data/new.cfg"); err != nil || len(got) != 6000 {
		t.Errorf("edited: %v", err)
	}

	// A damaged zstd section fails the files in it, as an xz one does.
	bad := bytes.Clone(b)
	var s *bpx.Section
	for _, x := range p.Reader.Sections {
		if x.Type == SectionData && x.Flags&bpx.FlagZstd != 0 {
			s = x
			break
		}
	}
	bad[int(s.Pointer)+int(s.CSize)/2] ^= 0x55
	if err := openBytes(t, bad).VerifyAll(); !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) {
		t.Errorf("damaged zstd section: %v", err)
	}
}

func mustData(t *testing.T, s *bpx.Section) []byte {
	t.Helper()
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestZstdWholeSections: from a local file, reading the first object of a
// zstd section decodes the section whole (faster than in steps, and no
// stored byte is saved over a local disk); an xz section is decoded only
// up to the object's end.
func TestZstdWholeSections(t *testing.T) {
	tree := fstest.MapFS{}
	for i := range 100 {
		tree["data/u"+strings.Repeat("y", i%9)+string(rune('a'+i%26))+".cfg"] = &fstest.MapFile{Data: []byte(strings.Repeat("[unit]\nid=elf "+strings.Repeat("z", i)+"\n[/unit]\n", 300))}
	}
	for _, c := range []bpx.Compression{bpx.CompressZstd, bpx.CompressXZ} {
		p := openBytes(t, pkgBytes(t, tree, WithCompression(c)))
		first := p.Objects()[0]
		if _, err := p.ReadObject(first.Index); err != nil {
			t.Fatal(err)
		}
		p.cache.mu.Lock()
		e := p.cache.entries[sectionKey(int(first.Start))]
		whole := e != nil && e.part == nil
		p.cache.mu.Unlock()
		if want := c == bpx.CompressZstd; whole != want {
			t.Errorf("%v: section decoded whole: %v, want %v", c, whole, want)
		}
	}
}

// TestZstdProfileIncompressible: a package of the zstd profile whose
// sections all end up raw is still of version bpx.VersionZstd, whose
// readers expect the standard CRC-32 its sections carry (version 2's
// would refuse them).
func TestZstdProfileIncompressible(t *testing.T) {
	tree := streamTree()
	delete(tree, "data/units.cfg")
	p := openBytes(t, pkgBytes(t, tree, WithCompression(bpx.CompressZstd)))
	if v := p.Reader.Header.Version; v != bpx.VersionZstd {
		t.Errorf("version %#x", v)
	}
	if err := p.VerifyAll(); err != nil {
		t.Error(err)
	}
}
