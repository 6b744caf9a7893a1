package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// edited applies edit to the package b and returns the result.
func edited(t testing.TB, b []byte, edit func(e *Editor) error, opts ...WriterOption) []byte {
	t.Helper()
	out, _ := editedBy(t, b, edit, opts...)
	return out
}

// editedBy is edited, returning the closed Editor too.
func editedBy(t testing.TB, b []byte, edit func(e *Editor) error, opts ...WriterOption) ([]byte, *Editor) {
	t.Helper()
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, b), opts...)
	if err := edit(e); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), e
}

// checkTree fails unless the package p holds exactly the files of want.
func checkTree(t testing.TB, p *Package, want fstest.MapFS) {
	t.Helper()
	var names []string
	for name, f := range want {
		names = append(names, name)
		got, err := fs.ReadFile(p, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !bytes.Equal(got, f.Data) {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(f.Data))
		}
	}
	if len(p.Objects()) != len(want) {
		t.Errorf("%d objects, want %d", len(p.Objects()), len(want))
	}
	if len(names) > 0 {
		if err := fstest.TestFS(p, names...); err != nil {
			t.Error(err)
		}
	}
	if err := p.Verify(); err != nil {
		t.Error(err)
	}
}

// storedSections returns a digest of the stored bytes of each data section.
func storedSections(t testing.TB, p *Package) [][32]byte {
	t.Helper()
	var out [][32]byte
	for _, s := range p.Reader.SectionsOfType(SectionData) {
		b, err := io.ReadAll(s.OpenRaw())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sha256.Sum256(b))
	}
	return out
}

// editTree is a tree whose objects fill several data sections of 4 KiB.
func editTree() fstest.MapFS {
	m := fstest.MapFS{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		data := make([]byte, 500+rng.IntN(1500))
		for k := range data {
			data[k] = byte('a' + rng.IntN(4))
		}
		m[fmt.Sprintf("dir%d/file%02d.txt", i%4, i)] = &fstest.MapFile{Data: data}
	}
	m["big.bin"] = &fstest.MapFile{Data: bytes.Repeat([]byte("big object spanning sections "), 600)}
	m["empty"] = &fstest.MapFile{}
	return m
}

func clone(m fstest.MapFS) fstest.MapFS {
	c := fstest.MapFS{}
	for k, v := range m {
		c[k] = &fstest.MapFile{Data: v.Data}
	}
	return c
}

// TestEditReplaceCopiesUntouchedSections: replacing one object leaves
// every data section not holding it byte for byte as it was, and the new
// bytes go into a new section.
func TestEditReplaceCopiesUntouchedSections(t *testing.T) {
	tree := editTree()
	for _, c := range []bpx.Compression{bpx.CompressXZ, bpx.CompressZlib, bpx.CompressNone} {
		src := pkgBytes(t, tree, WithSectionSize(4096), WithCompression(c))
		before := storedSections(t, openBytes(t, src))
		want := clone(tree)
		want["dir1/file05.txt"] = &fstest.MapFile{Data: []byte("replaced")}
		out := edited(t, src, func(e *Editor) error {
			w, err := e.Create("dir1/file05.txt")
			if err != nil {
				return err
			}
			_, err = io.WriteString(w, "replaced")
			return err
		}, WithCompression(c), WithSectionSize(4096))
		p := openBytes(t, out)
		checkTree(t, p, want)
		after := storedSections(t, p)
		if len(after) != len(before)+1 {
			t.Fatalf("%v: %d data sections, want %d + 1 new", c, len(after), len(before))
		}
		if !slices.Equal(after[:len(before)], before) {
			t.Errorf("%v: untouched data sections were re-encoded", c)
		}
		if dead, err := p.DeadBytes(); err != nil || dead == 0 || dead > uint64(len(tree["dir1/file05.txt"].Data)) {
			t.Errorf("%v: DeadBytes = %d, %v, want the replaced object's %d", c, dead, err, len(tree["dir1/file05.txt"].Data))
		}
		if !p.isClean() {
			t.Errorf("%v: names of the edited package are not in path order", c)
		}
	}
}

// TestEditVerbs: add, replace, remove a file and a directory, rename a
// file and a directory; metadata and TypeExt are kept unless set.
func TestEditVerbs(t *testing.T) {
	tree := editTree()
	var buf bytes.Buffer
	w := NewWriter(&buf, WithSectionSize(4096))
	ext := TypeExt{Arch: ArchX86_64, Platform: PlatformLinux, Generator: GeneratorGoBPX}
	w.SetTypeExt(ext)
	if err := w.SetMetadataValue(editMeta{"base"}); err != nil {
		t.Fatal(err)
	}
	if err := w.AddFS(tree); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := clone(tree)
	want["new/a.txt"] = &fstest.MapFile{Data: []byte("new file")}
	want["dir2/file02.txt"] = &fstest.MapFile{Data: bytes.Repeat([]byte("x"), 9000)}
	delete(want, "dir0/file00.txt")
	for k := range want {
		if strings.HasPrefix(k, "dir3/") {
			delete(want, k)
		}
	}
	want["renamed.txt"] = want["dir1/file01.txt"]
	delete(want, "dir1/file01.txt")
	for k, v := range want {
		if rest, ok := strings.CutPrefix(k, "dir1/"); ok {
			want["moved/deeper/"+rest] = v
			delete(want, k)
		}
	}
	out := edited(t, buf.Bytes(), func(e *Editor) error {
		if w, err := e.Create("new/a.txt"); err != nil {
			return err
		} else {
			io.WriteString(w, "new file")
		}
		if w, err := e.CreateSized("dir2/file02.txt", 9000); err != nil {
			return err
		} else {
			w.Write(bytes.Repeat([]byte("x"), 9000))
		}
		for _, step := range []error{
			e.Remove("dir0/file00.txt"),
			e.Remove("dir3"),
			e.Rename("dir1/file01.txt", "renamed.txt"),
			e.Rename("dir1", "moved/deeper"),
		} {
			if step != nil {
				return step
			}
		}
		return nil
	})
	p := openBytes(t, out)
	checkTree(t, p, want)
	if p.TypeExt != ext {
		t.Errorf("TypeExt %+v, want %+v", p.TypeExt, ext)
	}
	var meta editMeta
	if err := p.UnmarshalMetadata(&meta); err != nil || meta.Name != "base" {
		t.Errorf("metadata %v, %v; want it kept", meta, err)
	}

	// Metadata and TypeExt changed on request.
	out = edited(t, out, func(e *Editor) error {
		e.SetTypeExt(TypeExt{Arch: ArchAArch64, Platform: PlatformAndroid, Generator: GeneratorGoBPX})
		return e.SetMetadata(sd.NewObject().Set("name", sd.String("mod")))
	})
	p = openBytes(t, out)
	checkTree(t, p, want)
	if p.TypeExt.Arch != ArchAArch64 {
		t.Errorf("TypeExt not changed: %+v", p.TypeExt)
	}
	meta = editMeta{}
	if err := p.UnmarshalMetadata(&meta); err != nil || meta.Name != "mod" {
		t.Errorf("metadata %v, %v; want it changed", meta, err)
	}
	out = edited(t, out, func(e *Editor) error { return e.SetMetadata(nil) })
	if m, err := openBytes(t, out).Metadata(); m != nil || err != nil {
		t.Errorf("metadata %v, %v after removing it", m, err)
	}
}

type editMeta struct {
	Name string `sd:"name"`
}

// TestEditBadInput: invalid names and impossible edits are errors that
// leave the Editor usable, and nothing of the package changes.
func TestEditBadInput(t *testing.T) {
	tree := editTree()
	src := pkgBytes(t, tree, WithSectionSize(4096))
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, src))
	for _, name := range []string{"", ".", "/abs", "../up", "a//b", "a/./b", "dir0/"} {
		if _, err := e.Create(name); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("Create(%q) = %v, want ErrInsecurePath", name, err)
		}
		if err := e.Remove(name); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("Remove(%q) = %v, want ErrInsecurePath", name, err)
		}
		if err := e.Rename("big.bin", name); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("Rename to %q = %v, want ErrInsecurePath", name, err)
		}
	}
	for _, tc := range []struct {
		err  error
		want error
	}{
		{e.Remove("nothing"), fs.ErrNotExist},
		{e.Remove("dir0/nothing"), fs.ErrNotExist},
		{e.Rename("nothing", "x"), fs.ErrNotExist},
		{e.Rename("big.bin", "empty"), fs.ErrExist},
		{e.Rename("big.bin", "dir0"), fs.ErrExist},
		{e.Rename("dir0", "dir0/sub"), fs.ErrInvalid},
		{e.Rename("dir0", "big.bin/x"), fs.ErrExist},
		{second(e.Create("dir0")), fs.ErrExist},
		{second(e.Create("big.bin/x")), fs.ErrExist},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%v, want %v", tc.err, tc.want)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, out.Bytes())
	checkTree(t, p, tree)
	if !slices.Equal(storedSections(t, p), storedSections(t, openBytes(t, src))) {
		t.Error("a failed edit changed data sections")
	}
}

func second(_ io.Writer, err error) error { return err }

// TestEditCompact: Compact re-encodes exactly the sections holding dead
// bytes and leaves none.
func TestEditCompact(t *testing.T) {
	tree := editTree()
	src := pkgBytes(t, tree, WithSectionSize(4096))
	before := storedSections(t, openBytes(t, src))
	want := clone(tree)
	delete(want, "dir2/file06.txt")
	out := edited(t, src, func(e *Editor) error { return e.Remove("dir2/file06.txt") })
	p := openBytes(t, out)
	checkTree(t, p, want)
	dead, err := p.DeadBytes()
	if err != nil {
		t.Fatal(err)
	}
	if dead != uint64(len(tree["dir2/file06.txt"].Data)) {
		t.Fatalf("DeadBytes = %d, want %d", dead, len(tree["dir2/file06.txt"].Data))
	}
	out = edited(t, out, func(e *Editor) error { e.Compact(); return nil }, WithSectionSize(4096))
	p = openBytes(t, out)
	checkTree(t, p, want)
	if d, _ := p.DeadBytes(); d != 0 {
		t.Errorf("DeadBytes = %d after Compact", d)
	}
	after := storedSections(t, p)
	kept := 0
	for _, h := range after {
		if slices.Contains(before, h) {
			kept++
		}
	}
	// One or two sections held the removed file (it may straddle two);
	// every other section survives byte for byte.
	if kept < len(before)-2 || kept == len(before) || len(after) != len(before) {
		t.Errorf("%d of %d sections kept byte for byte, want all but the one or two with dead bytes", kept, len(before))
	}
	// Removing every object drops every data section.
	out = edited(t, out, func(e *Editor) error {
		for name := range want {
			if err := e.Remove(name); err != nil {
				return err
			}
		}
		return nil
	})
	p = openBytes(t, out)
	checkTree(t, p, fstest.MapFS{})
	if n := len(p.Reader.SectionsOfType(SectionData)); n != 0 {
		t.Errorf("%d data sections left in an empty package", n)
	}
}

// TestEditNotEditable: revision 1 packages and damaged object tables are
// refused at the first call, before anything is written.
func TestEditNotEditable(t *testing.T) {
	rev1 := rawPackage(t, 1, [16]byte{}, []rawSection{
		{typ: SectionStrings, data: []byte("a\x00")},
		{typ: SectionData, data: append(inlineHeader(1, 0), 'x')},
	})
	bad := rawPackage(t, 2, [16]byte{}, []rawSection{
		{typ: SectionObjectTable, data: objectEntry(5, 0, 9, 0)},
		{typ: SectionStrings, data: []byte("a\x00")},
	})
	for _, tc := range []struct {
		name string
		b    []byte
		is   error
	}{{"revision 1", rev1, bpx.ErrUnsupported}, {"damaged", bad, ErrObjectRange}} {
		var out bytes.Buffer
		e := NewEditor(&out, openBytes(t, tc.b))
		_, err := e.Create("x")
		if !errors.Is(err, ErrNotEditable) || !errors.Is(err, tc.is) {
			t.Errorf("%s: Create = %v, want ErrNotEditable and %v", tc.name, err, tc.is)
		}
		if err := e.Close(); err == nil || out.Len() != 0 {
			t.Errorf("%s: Close = %v with %d bytes written", tc.name, err, out.Len())
		}
	}
}

// failAfter fails every write after n bytes.
type failAfter struct {
	w io.Writer
	n int
}

var errInjected = errors.New("injected write failure")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errInjected
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestEditFileFaultInjection: a failure at any point of writing the edited
// package leaves the original file byte-identical and no temporary file.
func TestEditFileFaultInjection(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "base.bpx")
	orig := pkgBytes(t, editTree(), WithSectionSize(4096))
	if err := os.WriteFile(name, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(e *Editor) error {
		w, err := e.Create("dir0/file00.txt")
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, "changed")
		return err
	}
	var full bytes.Buffer
	e := NewEditor(&full, openBytes(t, orig))
	edit(e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// SaveFile buffers 256 KiB, so the output reaches the file in a few
	// writes: fail at many points within and at the end of the stream.
	points := []int{0, 1, 40, 500}
	for n := 4096; n < full.Len(); n += full.Len() / 16 {
		points = append(points, n)
	}
	points = append(points, full.Len()-1)
	for _, n := range points {
		err := editFile(name, name, edit, func(w io.Writer) io.Writer { return &failAfter{w: w, n: n} }, nil)
		if !errors.Is(err, errInjected) {
			t.Errorf("failing after %d bytes: err = %v", n, err)
		}
		got, _ := os.ReadFile(name)
		if !bytes.Equal(got, orig) {
			t.Fatalf("failing after %d bytes changed the original", n)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Fatalf("failing after %d bytes left files: %v", n, ents)
		}
	}
	// An edit function that fails leaves it too.
	if err := EditFile(name, func(e *Editor) error { return e.Remove("nothing") }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("EditFile = %v, want ErrNotExist", err)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, orig) {
		t.Fatal("a failed edit changed the original")
	}
	// And without a failure the file is edited.
	if err := EditFile(name, edit); err != nil {
		t.Fatal(err)
	}
	p, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if b, err := fs.ReadFile(p, "dir0/file00.txt"); err != nil || string(b) != "changed" {
		t.Errorf("edited file: %q, %v", b, err)
	}
}

// TestEditRandom applies random edits to a package and to a model of its
// tree, and compares them after each Close.
func TestEditRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	model := editTree()
	b := pkgBytes(t, model, WithSectionSize(2048))
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		b = edited(t, b, func(e *Editor) error {
			for range 1 + rng.IntN(8) {
				names := slices.Sorted(func(yield func(string) bool) {
					for k := range model {
						if !yield(k) {
							return
						}
					}
				})
				switch op := rng.IntN(4); {
				case op == 0 || len(names) == 0:
					name := fmt.Sprintf("r%d/n%d", rng.IntN(3), rng.IntN(20))
					data := bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(3000))
					w, err := e.Create(name)
					if err != nil {
						if !errors.Is(err, fs.ErrExist) {
							return err
						}
						continue // a directory of that name
					}
					w.Write(data)
					model[name] = &fstest.MapFile{Data: data}
				case op == 1:
					name := names[rng.IntN(len(names))]
					if err := e.Remove(name); err != nil {
						return err
					}
					delete(model, name)
				case op == 2:
					old := names[rng.IntN(len(names))]
					nw := fmt.Sprintf("m%d/%d", round, rng.IntN(1000))
					if _, ok := model[nw]; ok {
						continue
					}
					if err := e.Rename(old, nw); err != nil {
						return err
					}
					model[nw] = model[old]
					delete(model, old)
				default:
					e.Compact()
				}
			}
			return nil
		}, WithSectionSize(2048))
		checkTree(t, openBytes(t, b), model)
	}
}

// inlineHeader is a revision 1 object header: {u64 size, u32 name}.
func inlineHeader(size uint64, name uint32) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, size), name)
}

// objectEntry is a revision 2 object table entry.
func objectEntry(size uint64, name, start, offset uint32) []byte {
	b := binary.LittleEndian.AppendUint64(nil, size)
	b = binary.LittleEndian.AppendUint32(b, name)
	b = binary.LittleEndian.AppendUint32(b, start)
	return binary.LittleEndian.AppendUint32(b, offset)
}

// TestEditReviewCases: an object that starts at the very end of a section
// keeps its bytes; a failed Close writes nothing; a name held by kept
// duplicates is taken over by Create; objects that overlap over very many
// sections are refused instead of costing objects × sections.
func TestEditReviewCases(t *testing.T) {
	// x: 5 bytes from offset 10 of a 10-byte section, so all in the next.
	b := rawPackage(t, 2, [16]byte{}, []rawSection{
		{typ: SectionObjectTable, data: objectEntry(5, 0, 2, 10)},
		{typ: SectionStrings, data: []byte("x\x00")},
		{typ: SectionData, data: []byte("0123456789")},
		{typ: SectionData, data: []byte("abcdefghijklmnopqrst")},
	})
	if got, err := openBytes(t, b).ReadFile("x"); err != nil || string(got) != "abcde" {
		t.Fatalf("source: %q, %v", got, err)
	}
	for _, compact := range []bool{false, true} {
		out := edited(t, b, func(e *Editor) error {
			if compact {
				e.Compact()
			}
			return nil
		})
		if got, err := openBytes(t, out).ReadFile("x"); err != nil || string(got) != "abcde" {
			t.Errorf("compact %v: x = %q, %v, want abcde", compact, got, err)
		}
	}

	// A section whose dead bytes are damaged fails Compact: nothing is
	// written to the destination.
	src := pkgBytes(t, fstest.MapFS{"a": {Data: bytes.Repeat([]byte("a"), 100)}, "b": {Data: bytes.Repeat([]byte("b"), 100)}},
		WithCompression(bpx.CompressNone), WithSectionSize(1<<20))
	bad := bytes.Clone(src)
	i := bytes.Index(bad, bytes.Repeat([]byte("a"), 100))
	bad[i] = 'X' // inside a's bytes, dead once a is removed
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, bad))
	e.Remove("a")
	e.Compact()
	if err := e.Close(); !errors.Is(err, bpx.ErrChecksum) {
		t.Errorf("Close = %v, want ErrChecksum", err)
	}
	if out.Len() != 0 {
		t.Errorf("a failed Close wrote %d bytes", out.Len())
	}

	// Duplicates are kept verbatim until Create takes their name.
	var dup bytes.Buffer
	w := NewWriter(&dup, AllowInvalidNames())
	for _, s := range []string{"one", "two"} {
		f, _ := w.Create("x")
		io.WriteString(f, s)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, edited(t, dup.Bytes(), func(e *Editor) error {
		f, err := e.Create("x")
		if err == nil {
			_, err = io.WriteString(f, "three")
		}
		return err
	}))
	if got, err := p.ReadFile("x"); err != nil || string(got) != "three" || len(p.Objects()) != 1 {
		t.Errorf("x = %q, %v with %d objects, want three alone", got, err, len(p.Objects()))
	}

	// n objects each spanning n one-byte sections.
	const n = 300
	secs := []rawSection{{typ: SectionObjectTable}, {typ: SectionStrings, data: []byte("o\x00")}}
	for range n {
		secs[0].data = append(secs[0].data, objectEntry(n, 0, 2, 0)...)
		secs = append(secs, rawSection{typ: SectionData, data: []byte{1}})
	}
	hostile := openBytes(t, rawPackage(t, 2, [16]byte{}, secs))
	if _, err := NewEditor(io.Discard, hostile).Create("y"); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("overlapping spans: %v, want ErrTooLarge", err)
	}
	if _, err := hostile.DeadBytes(); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("DeadBytes of overlapping spans: %v, want ErrTooLarge", err)
	}
}
