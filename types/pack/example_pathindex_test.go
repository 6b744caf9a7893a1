package pack_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"testing/fstest"

	"github.com/gobpx/bpx/types/pack"
)

// ExampleWithPathIndex writes a package with a path index (a package of
// large tables gets one without asking) and reads one file and one
// directory through it, then the object table.
func ExampleWithPathIndex() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithPathIndex(true))
	tree := fstest.MapFS{
		"levels/1.map":   {Data: []byte("first level")},
		"levels/2.map":   {Data: []byte("second level")},
		"sounds/hit.ogg": {Data: []byte("OggS...")},
	}
	if err := w.AddFS(tree); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("index section:", p.Reader.FindSection(pack.SectionPathIndex).Index)
	b, err := p.ReadFile("levels/2.map")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("levels/2.map: %s\n", b)
	ents, err := fs.ReadDir(p, "levels")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range ents {
		fmt.Println("levels/" + e.Name())
	}
	// Objects, Unpack and the checks read the tables at their first call;
	// LoadTables reads them now and says if they cannot be read.
	if err := p.LoadTables(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("objects:", len(p.Objects()))
	// Output:
	// index section: 0
	// levels/2.map: second level
	// levels/1.map
	// levels/2.map
	// objects: 3
}
