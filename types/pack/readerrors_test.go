package pack

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// TestReadErrorsNameTheFile: issue 43 item 3. A read of a damaged object
// through the fs.FS fails with an error that names the file (an
// *fs.PathError, or the *ObjectError of a wrong digest), whichever way it
// is read; it named only the section before.
func TestReadErrorsNameTheFile(t *testing.T) {
	tree := fstest.MapFS{}
	for _, n := range []string{"cfg/a.cfg", "cfg/b.cfg", "cfg/c.cfg"} {
		tree[n] = &fstest.MapFile{Data: bytes.Repeat([]byte("key = value of "+n+"\n"), 400)}
	}
	good := pkgBytes(t, tree)
	p := openBytes(t, good)
	var data *bpx.Section
	for _, s := range p.Reader.Sections {
		if s.Type == SectionData {
			data = s
		}
	}
	for _, at := range []uint64{data.Pointer + 40, data.Pointer + uint64(data.StoredSize())/2, data.Pointer + uint64(data.StoredSize()) - 3} {
		bad := openBytes(t, flipAt(good, at))
		for name := range tree {
			reads := map[string]func() error{
				"ReadFile": func() error { _, err := fs.ReadFile(bad, name); return err },
				"Read": func() error {
					f, err := bad.Open(name)
					if err != nil {
						return err
					}
					defer f.Close()
					_, err = io.ReadAll(struct{ io.Reader }{f})
					return err
				},
				"WriteTo": func() error {
					f, err := bad.Open(name)
					if err != nil {
						return err
					}
					defer f.Close()
					_, err = f.(io.WriterTo).WriteTo(io.Discard)
					return err
				},
			}
			for how, read := range reads {
				err := read()
				if err == nil {
					continue // the flipped byte lies after this file's end
				}
				if !strings.Contains(err.Error(), name) {
					t.Errorf("byte %d, %s of %s: %v does not name the file", at, how, name, err)
				}
				if !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrFormat) {
					t.Errorf("byte %d, %s of %s: %v", at, how, name, err)
				}
			}
			bad = openBytes(t, flipAt(good, at)) // no cached damage
		}
	}
	// A write error is the writer's, not the file's.
	f, _ := p.Open("cfg/a.cfg")
	defer f.Close()
	werr := errors.New("disk full")
	if _, err := f.(io.WriterTo).WriteTo(failWriter{werr}); err != werr {
		t.Errorf("WriteTo a failing writer: %v", err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }
