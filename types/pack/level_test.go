package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// levelTree is text enough for the tables to pass the 64 KiB threshold of
// their compression (5000 objects: 100 KB of table, 140 KB of names) and for
// several 1 MiB sections.
func levelTree() fstest.MapFS {
	m := fstest.MapFS{}
	for i := range 5000 {
		line := []byte(fmt.Sprintf("func (w *Writer) Create%d(name string) (io.Writer, error) { return w.create(name, %d) }\n", i, -i))
		name := "assets/package/dir" + string(rune('a'+i%26)) + "/file" + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + ".go"
		m[name] = &fstest.MapFile{Data: bytes.Repeat(line, 8+i%5)}
	}
	return m
}

func TestWithLevel(t *testing.T) {
	tree := levelTree()
	def := openBytes(t, pkgBytes(t, tree))
	maxPkg := pkgBytes(t, tree, WithLevel(bpx.LevelMax))
	mx := openBytes(t, maxPkg)
	for _, p := range []*Package{def, mx} {
		for name, f := range tree {
			got, err := fs.ReadFile(p, name)
			if err != nil || !bytes.Equal(got, f.Data) {
				t.Fatalf("%s: %d bytes, %v", name, len(got), err)
			}
		}
	}
	dataSecs := func(p *Package) (n int, last uint32) {
		for _, s := range p.Reader.Sections {
			if s.Type == SectionData {
				n++
				last = s.USize
			}
		}
		return
	}
	nd, _ := dataSecs(def)
	nm, _ := dataSecs(mx)
	if nd < 4 || nm != (nd+3)/4 {
		t.Errorf("%d data sections at the default level, %d at LevelMax: want sections of 1 and 4 MiB", nd, nm)
	}
	for _, typ := range []uint8{SectionObjectTable, SectionStrings} {
		if s := mx.Reader.FindSection(typ); s == nil || !s.Compressed() {
			t.Errorf("LevelMax: section type %#x not compressed", typ)
		}
		if s := def.Reader.FindSection(typ); s == nil || !s.Compressed() {
			t.Errorf("default level: section type %#x not compressed", typ)
		}
	}
	if len(maxPkg) >= int(def.Reader.Header.FileSize) {
		t.Errorf("LevelMax package %d bytes, not smaller than the default's %d", len(maxPkg), def.Reader.Header.FileSize)
	}
	// An explicit section size wins over the level's.
	small := openBytes(t, pkgBytes(t, tree, WithLevel(bpx.LevelMax), WithSectionSize(256<<10)))
	if n, _ := dataSecs(small); n < 4 {
		t.Errorf("LevelMax with 256 KiB sections made %d data sections", n)
	}
}

func TestWithLevelInvalid(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WithLevel(bpx.LevelMax+1))
	if _, err := w.Create("a"); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("Create after WithLevel(out of range): %v, want ErrUnsupported", err)
	}
	w.Close()
}

// Editing a package whose tables are compressed keeps them compressed,
// whatever level the edit uses.
func TestEditKeepsCompressedTables(t *testing.T) {
	src := openBytes(t, pkgBytes(t, levelTree(), WithLevel(bpx.LevelMax)))
	var out bytes.Buffer
	e := NewEditor(&out, src)
	if err := e.Remove("assets/package/dira/fileaa.go"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, out.Bytes())
	for _, typ := range []uint8{SectionObjectTable, SectionStrings} {
		if s := p.Reader.FindSection(typ); s == nil || !s.Compressed() {
			t.Errorf("after the edit, section type %#x is not compressed", typ)
		}
	}
	if len(p.Objects()) != len(src.Objects())-1 {
		t.Errorf("%d objects after removing one of %d", len(p.Objects()), len(src.Objects()))
	}
}
