package pack_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// ExampleNewWriter writes a package with two objects and metadata.
func ExampleNewWriter() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressXZ))
	if err := w.SetMetadata(sd.NewObject().Set("name", sd.String("demo"))); err != nil {
		log.Fatal(err)
	}
	f, err := w.Create("textures/stone.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprint(f, "grey\n")
	if err := w.AddFS(fstest.MapFS{"scripts/main.lua": {Data: []byte("print('hi')\n")}}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range p.Objects() {
		fmt.Printf("%s: %d bytes at section %d offset %d\n", o.Name, o.Size, o.Start, o.Offset)
	}
	m, _ := p.Metadata()
	name, _ := m.Get("name")
	fmt.Println("metadata name:", name)
	// Output:
	// textures/stone.txt: 5 bytes at section 4 offset 0
	// scripts/main.lua: 12 bytes at section 4 offset 5
	// metadata name: "demo"
}

// ExampleOpen uses a package as an fs.FS.
func ExampleOpen() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	w.AddFS(fstest.MapFS{
		"models/ship.obj":    {Data: []byte("v 0 0 0\n")},
		"models/rock.obj":    {Data: []byte("v 1 1 1\n")},
		"textures/ship.png":  {Data: []byte("\x89PNG")},
		"shaders/basic.glsl": {Data: []byte("void main(){}\n")},
	})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// pack.Open(name) opens a file the same way.
	var fsys fs.FS
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fsys = p
	fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		fmt.Println(path)
		return err
	})
	data, err := fs.ReadFile(fsys, "models/ship.obj")
	fmt.Printf("%q %v\n", data, err)
	// Output:
	// .
	// models
	// models/rock.obj
	// models/ship.obj
	// shaders
	// shaders/basic.glsl
	// textures
	// textures/ship.png
	// "v 0 0 0\n" <nil>
}

// ExampleNewEditor replaces, adds and removes objects of a package without
// repacking it: untouched data sections are copied as they are.
func ExampleNewEditor() {
	var orig bytes.Buffer
	w := pack.NewWriter(&orig)
	for name, text := range map[string]string{"maps/a.map": "old map", "readme.txt": "hi", "old/x": "x"} {
		f, _ := w.Create(name)
		io.WriteString(f, text)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	src, err := pack.NewReader(bytes.NewReader(orig.Bytes()), int64(orig.Len()))
	if err != nil {
		log.Fatal(err)
	}

	var edited bytes.Buffer
	e := pack.NewEditor(&edited, src)
	f, _ := e.Create("maps/a.map") // replaces the object
	io.WriteString(f, "new map")
	if err := e.Remove("old"); err != nil { // a whole directory
		log.Fatal(err)
	}
	if err := e.Close(); err != nil {
		log.Fatal(err)
	}

	p, err := pack.NewReader(bytes.NewReader(edited.Bytes()), int64(edited.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range p.Objects() {
		data, _ := fs.ReadFile(p, o.Name)
		fmt.Printf("%s: %s\n", o.Name, data)
	}
	changes, _ := pack.Diff(src, p)
	fmt.Println(changes)
	// Output:
	// maps/a.map: new map
	// readme.txt: hi
	// [{maps/a.map modified} {old/x removed}]
}

// ExamplePackage_VerifyAll checks a whole package before a launcher
// installs it, as "bpx verify" does: every section, every object's
// digest, the structure.
func ExamplePackage_VerifyAll() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := w.AddFS(fstest.MapFS{
		"maps/e1m1.txt": {Data: []byte("a map")},
		"sounds/door":   {Data: []byte("creak")},
	}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	p, err := pack.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("as written:", p.VerifyAll())

	// One byte of the digest section changed: readers ignore the
	// digests (and check whole sections), the structure is intact, but
	// the package is not as written.
	ds := p.Reader.FindSection(pack.SectionDigests)
	b[ds.Pointer+uint64(ds.StoredSize())-1] ^= 1
	p, err = pack.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("structure:", p.VerifyStructure())
	fmt.Println("all:", errors.Is(p.VerifyAll(), bpx.ErrChecksum))
	// Output:
	// as written: <nil>
	// structure: <nil>
	// all: true
}
