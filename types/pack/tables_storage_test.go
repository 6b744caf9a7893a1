package pack

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/gobpx/bpx"
)

// TestTableStorage: the object table and strings are compressed by
// default, raw WithRawTables, and raw with a path index whatever the
// options (an index over compressed tables is never used, so LevelMax
// with an index wrote one for nothing); the Editor keeps raw tables raw
// and compressed ones compressed.
func TestTableStorage(t *testing.T) {
	tree := levelTree()
	cases := []struct {
		name       string
		opts       []WriterOption
		compressed bool
		indexed    bool
	}{
		{"default", nil, true, false},
		{"raw", []WriterOption{WithRawTables()}, false, false},
		{"max", []WriterOption{WithLevel(bpx.LevelMax)}, true, false},
		{"indexed", []WriterOption{WithPathIndex(true)}, false, true},
		{"indexed-max", []WriterOption{WithPathIndex(true), WithLevel(bpx.LevelMax)}, false, true},
		{"none", []WriterOption{WithCompression(bpx.CompressNone)}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := pkgBytes(t, tree, c.opts...)
			p := openBytes(t, b)
			check := func(what string, p *Package) {
				t.Helper()
				for _, typ := range []uint8{SectionObjectTable, SectionStrings} {
					if s := p.Reader.FindSection(typ); s == nil || s.Compressed() != c.compressed {
						t.Errorf("%s: section %#x compressed %v, want %v", what, typ, s != nil && s.Compressed(), c.compressed)
					}
				}
				if (p.pidx.Load() != nil) != c.indexed {
					t.Errorf("%s: path index in use %v, want %v", what, p.pidx.Load() != nil, c.indexed)
				}
				for name, f := range tree {
					if got, err := fs.ReadFile(p, name); err != nil || !bytes.Equal(got, f.Data) {
						t.Fatalf("%s: %s: %d bytes, %v", what, name, len(got), err)
					}
				}
			}
			check("written", p)
			var out bytes.Buffer
			e := NewEditor(&out, p)
			if err := e.Remove("assets/package/dira/fileaa.go"); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			delete(tree, "assets/package/dira/fileaa.go")
			defer func() { tree = levelTree() }()
			check("edited", openBytes(t, out.Bytes()))
		})
	}
}
