package pack

import (
	"bytes"
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// FuzzEdit opens arbitrary bytes as a package and edits it: replace,
// remove, rename, add, and Compact; then diffs the source against the
// result. Nothing may panic; an edit that succeeds must give a package
// that opens, holds the new object and differs from the source exactly
// by the edit.
func FuzzEdit(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input, which takes long
	// for large ones.
	f.Add(pkgBytes(f, fstest.MapFS{"a/1": {Data: bytes.Repeat([]byte("ab"), 90)}, "a/2": {Data: []byte("two")}, "c": {Data: []byte("c")}}, WithSectionSize(128)), uint8(0))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: []byte("abc")}, "d/b": {Data: []byte("x")}}, WithCompression(bpx.CompressZlib), WithSectionSize(2)), uint8(1))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: bytes.Repeat([]byte("z"), 300)}, "b": {}}, WithCompression(bpx.CompressNone), WithSectionSize(100)), uint8(2))
	f.Fuzz(editOnce)
}

func editOnce(t *testing.T, b []byte, ops uint8) {
	{
		open := func(b []byte) (*Package, error) {
			return NewReader(bytes.NewReader(b), int64(len(b)), WithMaxObjects(1000),
				WithReaderOptions(bpx.WithMaxSectionSize(4<<20), bpx.WithMaxXZDictionary(1<<20)))
		}
		p, err := open(b)
		if err != nil {
			return
		}
		var names []string
		bad := p.InvalidPaths()
		for i, o := range p.Objects() {
			if _, skip := bad[i]; !skip {
				names = append(names, o.Name)
			}
		}
		slices.Sort(names)
		var out bytes.Buffer
		e := NewEditor(&out, p, WithSectionSize(4096), WithCompression(bpx.CompressZlib))
		if w, err := e.Create("fuzz/new"); err == nil {
			w.Write([]byte("new"))
		} else {
			e.Close()
			return // not editable
		}
		if len(names) > 0 {
			switch ops % 3 {
			case 0:
				e.Remove(names[0])
			case 1:
				e.Rename(names[len(names)-1], "fuzz/renamed")
			}
		}
		if ops&4 != 0 {
			e.Compact()
		}
		if ops&8 != 0 {
			e.Recompress()
		}
		if err := e.Close(); err != nil {
			return // e.g. a section that does not decompress, with Compact
		}
		q, err := open(out.Bytes())
		if err != nil {
			t.Fatalf("edited package does not open: %v", err)
		}
		if got, err := fs.ReadFile(q, "fuzz/new"); err != nil || string(got) != "new" {
			t.Fatalf("new object: %q, %v", got, err)
		}
		if _, err := Diff(p, q); err != nil {
			// Reading a damaged source object is an error, never a panic.
			return
		}
	}
}
