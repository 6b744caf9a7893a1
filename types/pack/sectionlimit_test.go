package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// bufReader is Rust's std::io::BufReader with its default 8 KiB buffer,
// over a file that always returns full reads: a read is served from the
// buffer while it holds bytes (and then returns at most those), a read of
// at least the buffer's size into an empty buffer goes to the file
// directly, and any other read first fills the buffer with one file read.
type bufReader struct {
	file     []byte
	pos      int // file position
	buf      []byte
	off, end int
}

func (r *bufReader) read(p []byte) int {
	if r.off == r.end && len(p) >= len(r.buf) {
		n := copy(p, r.file[r.pos:])
		r.pos += n
		return n
	}
	if r.off == r.end {
		r.end = copy(r.buf, r.file[r.pos:])
		r.pos += r.end
		r.off = 0
	}
	n := copy(p, r.buf[r.off:r.end])
	r.off += n
	return n
}

// readFill is the reference SDK's bytesutil::ReadFill::read_fill as the
// implementers' notes describe it: it loops until it has read len(p)
// bytes, but indexes by the length of the last read rather than the
// running total.
func (r *bufReader) readFill(p []byte) int {
	last := 0
	for last < len(p) {
		n := r.read(p[last:])
		if n == 0 {
			break
		}
		last = n
	}
	return last
}

// referenceOpen reads the main header and the section table of a BPX file
// the way the reference SDK does through a BufReader (notes §14.3): one
// 40-byte main header, then one 24-byte section header at a time. It
// returns the section count, or the reference's Truncated error.
func referenceOpen(b []byte) (int, error) {
	r := &bufReader{file: b, buf: make([]byte, 8192)}
	var h [40]byte
	if r.readFill(h[:]) != len(h) {
		return 0, errors.New("Truncated: main header")
	}
	n := int(binary.LittleEndian.Uint32(h[16:]))
	for i := range n {
		var s [24]byte
		if r.readFill(s[:]) != len(s) {
			return 0, fmt.Errorf("Truncated: section header %d", i)
		}
	}
	return n, nil
}

// referenceReadable fails unless the reference opens b through a
// BufReader, and returns its section count.
func referenceReadable(t testing.TB, b []byte) int {
	t.Helper()
	n, err := referenceOpen(b)
	if err != nil {
		t.Fatalf("the reference cannot read the package (%d sections): %v", binary.LittleEndian.Uint32(b[16:]), err)
	}
	return n
}

// emptySections returns a container of n empty sections.
func emptySections(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	for range n {
		if err := w.WriteSection(0x42, bpx.SectionOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReferenceOpen checks the model of the reference against what the
// notes measured: 339 sections open, 340 fail.
func TestReferenceOpen(t *testing.T) {
	if n, err := referenceOpen(emptySections(t, bpx.ReferenceMaxSections)); err != nil || n != 339 {
		t.Fatalf("339 sections: %d, %v", n, err)
	}
	if _, err := referenceOpen(emptySections(t, bpx.ReferenceMaxSections+1)); err == nil {
		t.Fatal("340 sections open in the model of the reference")
	}
}

// distinctFiles returns n files of size random bytes each, named f0000...
func distinctFiles(n, size int, seed byte) fstest.MapFS {
	rnd := rand.New(rand.NewChaCha8([32]byte{seed}))
	m := fstest.MapFS{}
	for i := range n {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(rnd.Uint32())
		}
		m[fmt.Sprintf("f%04d", i)] = &fstest.MapFile{Data: b}
	}
	return m
}

// distinctText returns n files of size bytes of distinct text, which
// compresses.
func distinctText(n, size int, seed byte) fstest.MapFS {
	rnd := rand.New(rand.NewChaCha8([32]byte{seed}))
	m := fstest.MapFS{}
	for i := range n {
		var b []byte
		for len(b) < size {
			b = fmt.Appendf(b, "line %d of file %d: %d\n", len(b), i, rnd.IntN(10))
		}
		m[fmt.Sprintf("f%04d", i)] = &fstest.MapFile{Data: b[:size]}
	}
	return m
}

// TestPackWithinReferenceLimit: issue 24 item 1, bpx pack of 338 files of
// the section size made 340 sections. Sizes are scaled down: 1 KiB
// sections stand for 1 MiB ones.
func TestPackWithinReferenceLimit(t *testing.T) {
	const sec = 1024
	cases := []struct {
		name  string
		files fstest.MapFS
	}{
		{"338 files of the section size", distinctFiles(338, sec, 1)},
		{"1500 small files", distinctFiles(1500, 300, 2)},
		{"large and small", func() fstest.MapFS {
			m := distinctFiles(250, 3*sec+1, 3)
			for k, v := range distinctFiles(250, 10, 4) {
				m["small/"+k] = v
			}
			return m
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := pkgBytes(t, c.files, WithSectionSize(sec), WithCompression(bpx.CompressNone))
			if n := referenceReadable(t, b); n > bpx.ReferenceMaxSections {
				t.Fatalf("%d sections", n)
			}
			checkTree(t, openBytes(t, b), c.files)

			// The limit lifted: every file of the section size has a
			// section of its own, as before.
			lifted := pkgBytes(t, c.files, WithSectionSize(sec), WithCompression(bpx.CompressNone), WithMaxSections(0))
			checkTree(t, openBytes(t, lifted), c.files)
			if c.name == "338 files of the section size" {
				if n := len(openBytes(t, lifted).Reader.Sections); n != 341 {
					t.Fatalf("WithMaxSections(0): %d sections, want 341", n)
				}
			}
		})
	}
}

// TestWriterCreateWithinLimit: objects written with Create, of sizes the
// Writer learns only as they are written, still end within the limit
// (Close merges sections), and objects spanning merged sections read back.
func TestWriterCreateWithinLimit(t *testing.T) {
	files := distinctFiles(400, 1000, 5)
	files["big"] = &fstest.MapFile{Data: bytes.Repeat([]byte("0123456789abcdef"), 3000)}
	var buf bytes.Buffer
	w := NewWriter(&buf, WithSectionSize(1024), WithCompression(bpx.CompressXZ), WithLevel(bpx.LevelFast))
	for _, name := range sortedNames(files) {
		ow, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ow.Write(files[name].Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := referenceReadable(t, buf.Bytes()); n > bpx.ReferenceMaxSections {
		t.Fatalf("%d sections", n)
	}
	p := openBytes(t, buf.Bytes())
	checkTree(t, p, files)
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
}

func sortedNames(m fstest.MapFS) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.SortFunc(names, cmpPath)
	return names
}

// TestEditAddsWithinLimit: issue 24 item 1, 215 one-file edits of a
// 129-section package made 344 sections. The editor joins what it writes
// to a small last section, so a run of small adds does not add a section
// each, and it never writes more sections than the limit.
func TestEditAddsWithinLimit(t *testing.T) {
	const sec = 1024
	// Text: random bytes would go to stored sections, which compressed
	// data is never joined to.
	want := distinctText(127, sec, 6)
	b := pkgBytes(t, want, WithSectionSize(sec))
	start := len(openBytes(t, b).Reader.Sections)
	if start != 130 {
		t.Fatalf("start: %d sections, want 130", start)
	}
	for i := range 215 {
		name := fmt.Sprintf("added/%03d.txt", i)
		data := []byte(fmt.Sprintf("file %d\n", i))
		want[name] = &fstest.MapFile{Data: data}
		b = edited(t, b, func(e *Editor) error { return writeObject(e, name, data) }, WithSectionSize(sec))
		if n := referenceReadable(t, b); n > bpx.ReferenceMaxSections {
			t.Fatalf("after %d adds: %d sections", i+1, n)
		}
	}
	p := openBytes(t, b)
	checkTree(t, p, want)
	// 215 adds of about 12 bytes: 2.6 KiB, in sections of up to 1/8 of
	// the section size joined: about 20 sections, not 215.
	if n := len(p.Reader.Sections); n > start+25 {
		t.Fatalf("%d sections after 215 small adds to %d", n, start)
	}
}

func writeObject(e *Editor, name string, data []byte) error {
	w, err := e.Create(name)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// TestEditOverLimitSource: a package made with the limit lifted comes out
// of any edit within it, every object intact; with the limit lifted for
// the edit too, the untouched sections stay as they are.
func TestEditOverLimitSource(t *testing.T) {
	const sec = 1024
	want := distinctFiles(500, sec, 7)
	b := pkgBytes(t, want, WithSectionSize(sec), WithMaxSections(0), WithCompression(bpx.CompressZlib), compressAll())
	if n := len(openBytes(t, b).Reader.Sections); n != 503 {
		t.Fatalf("source: %d sections", n)
	}
	want["new"] = &fstest.MapFile{Data: []byte("new")}
	out := edited(t, b, func(e *Editor) error { return writeObject(e, "new", []byte("new")) }, WithSectionSize(sec))
	if n := referenceReadable(t, out); n > bpx.ReferenceMaxSections {
		t.Fatalf("%d sections", n)
	}
	p := openBytes(t, out)
	checkTree(t, p, want)
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	lifted := edited(t, b, func(e *Editor) error { return writeObject(e, "new", []byte("new")) }, WithSectionSize(sec), WithMaxSections(0))
	if n := len(openBytes(t, lifted).Reader.Sections); n != 504 {
		t.Fatalf("lifted: %d sections, want 504", n)
	}
}

// TestRepackMergesSmallSections: Compact (bpx repack) joins neighbouring
// sections that together fit the section size.
func TestRepackMergesSmallSections(t *testing.T) {
	const sec = 1024
	want := distinctFiles(20, 100, 8)
	b := pkgBytes(t, fstest.MapFS{"seed": {Data: []byte("seed")}}, WithSectionSize(sec))
	want["seed"] = &fstest.MapFile{Data: []byte("seed")}
	for _, name := range sortedNames(distinctFiles(20, 100, 8)) {
		b = edited(t, b, func(e *Editor) error { return writeObject(e, name, want[name].Data) }, WithSectionSize(sec), WithMaxSections(0))
	}
	before := len(openBytes(t, b).Reader.Sections)
	out := edited(t, b, func(e *Editor) error { e.Compact(); return nil }, WithSectionSize(sec))
	p := openBytes(t, out)
	checkTree(t, p, want)
	// 2004 bytes of data: two or three sections of at most 1 KiB.
	if n := len(p.Reader.Sections); n > 2+3 {
		t.Fatalf("repack: %d sections (from %d)", n, before)
	}
}

// TestMaxSectionsUnreachable: sections the editor must keep as they are
// (of other types) can exceed the limit, which is then an error.
func TestMaxSectionsUnreachable(t *testing.T) {
	b := pkgBytes(t, fstest.MapFS{"a": {Data: []byte("a")}})
	var buf bytes.Buffer
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	err = bpx.Rewrite(&buf, rd, func(e *bpx.Editor) error {
		for range 10 {
			if err := e.Append(0x42, bpx.SectionOptions{}, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, buf.Bytes()), WithMaxSections(8))
	if err := writeObject(e, "b", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); !errors.Is(err, bpx.ErrTooLarge) {
		t.Fatalf("Close: %v, want ErrTooLarge", err)
	}
}

func TestWithMaxSectionsRange(t *testing.T) {
	for _, n := range []int{-1, 1, 3} {
		w := NewWriter(io.Discard, WithMaxSections(n))
		if _, err := w.Create("a"); err == nil {
			t.Errorf("WithMaxSections(%d) accepted", n)
		}
	}
}
