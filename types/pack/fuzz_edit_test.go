package pack

import (
	"bytes"
	"io/fs"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// FuzzEdit opens arbitrary bytes as a package and edits it: replace,
// remove, rename, add (a new object, and with AddFS a copy of an object,
// which it may find there), and Compact; then diffs the source against
// the result. Nothing may panic; an edit that succeeds must give a package
// that opens and holds the new objects.
func FuzzEdit(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input, which takes long
	// for large ones.
	f.Add(pkgBytes(f, fstest.MapFS{"a/1": {Data: bytes.Repeat([]byte("ab"), 90)}, "a/2": {Data: []byte("two")}, "c": {Data: []byte("c")}}, WithSectionSize(128)), uint8(0))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: []byte("abc")}, "d/b": {Data: []byte("x")}}, WithCompression(bpx.CompressZlib), WithSectionSize(2)), uint8(1))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: bytes.Repeat([]byte("z"), 300)}, "b": {}}, WithCompression(bpx.CompressNone), WithSectionSize(100)), uint8(2))
	f.Add(pkgBytes(f, fstest.MapFS{"a/1": {Data: bytes.Repeat([]byte("ab"), 90)}, "a/2": {Data: []byte("two")}, "c": {Data: []byte("c")}}, WithSectionSize(128)), uint8(16|4))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: []byte("abc")}, "d/b": {Data: []byte("x")}}, WithCompression(bpx.CompressZlib), WithSectionSize(2)), uint8(16|1))
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
		// A copy of an object (or as many zeros, if it does not read),
		// under its base name, so that AddFS compares them (fuzz/pad pays
		// for it, see priorObjects).
		var copyName string
		var copyData []byte
		if ops&16 != 0 && len(names) > 0 {
			name := names[len(names)/2]
			if fi, err := fs.Stat(p, name); err == nil && fi.Size() <= 1<<16 {
				copyName = "fuzz/copy/" + path.Base(name)
				if copyData, err = fs.ReadFile(p, name); err != nil {
					copyData = make([]byte, fi.Size())
				}
				if err := e.AddFS(fstest.MapFS{copyName: {Data: copyData}, "fuzz/pad": {Data: make([]byte, 1<<16)}}); err != nil {
					e.Close()
					return
				}
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
		if copyName != "" {
			if got, err := fs.ReadFile(q, copyName); err != nil || !bytes.Equal(got, copyData) {
				t.Fatalf("%s: %q, %v; want %q", copyName, got, err, copyData)
			}
		}
		if _, err := Diff(p, q); err != nil {
			// Reading a damaged source object is an error, never a panic.
			return
		}
	}
}
