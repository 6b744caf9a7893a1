package pack

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
)

// dupTree has three copies of a file in different directories, a file of
// the same size but other bytes, an object of a section of its own and its
// copy, and two empty files.
func dupTree() fstest.MapFS {
	rnd := rand.New(rand.NewChaCha8([32]byte{7}))
	noise := make([]byte, 40_000)
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	other := bytes.Clone(noise)
	other[20_000] ^= 1
	big := bytes.Repeat(noise, 4) // 160,000 bytes: larger than the sections below
	return fstest.MapFS{
		"a/noise.bin":    {Data: noise},
		"b/copy.bin":     {Data: noise},
		"c/d/again.bin":  {Data: noise},
		"b/other.bin":    {Data: other},
		"big/one.raw":    {Data: big},
		"big/two.raw":    {Data: big},
		"empty1":         {Data: nil},
		"empty2":         {Data: nil},
		"small/text.txt": {Data: []byte("small\n")},
	}
}

func TestAddFSStoresDuplicatesOnce(t *testing.T) {
	tree := dupTree()
	b := pkgBytes(t, tree, WithSectionSize(64<<10), WithCompression(0))
	p := openBytes(t, b)
	where := map[string][2]uint32{}
	for _, o := range p.Objects() {
		where[o.Name] = [2]uint32{o.Start, o.Offset}
		got, err := fs.ReadFile(p, o.Name)
		if err != nil {
			t.Fatalf("ReadFile(%s): %v", o.Name, err)
		}
		if !bytes.Equal(got, tree[o.Name].Data) {
			t.Errorf("%s: read %d bytes that differ from the %d written", o.Name, len(got), len(tree[o.Name].Data))
		}
	}
	for _, pair := range [][2]string{{"a/noise.bin", "b/copy.bin"}, {"a/noise.bin", "c/d/again.bin"}, {"big/one.raw", "big/two.raw"}} {
		if where[pair[0]] != where[pair[1]] {
			t.Errorf("%s at %v and its copy %s at %v: stored twice", pair[0], where[pair[0]], pair[1], where[pair[1]])
		}
	}
	if where["a/noise.bin"] == where["b/other.bin"] {
		t.Error("a file of the same size but other bytes shares its copy's bytes")
	}
	// Raw sections: the data sections hold each distinct file once.
	var data, distinct uint64
	for _, s := range p.Reader.Sections {
		if s.Type == SectionData {
			data += uint64(s.USize)
		}
	}
	for _, n := range []string{"a/noise.bin", "b/other.bin", "big/one.raw", "small/text.txt"} {
		distinct += uint64(len(tree[n].Data))
	}
	if data != distinct {
		t.Errorf("data sections hold %d bytes, want %d (each distinct file once)", data, distinct)
	}
	if dead, err := p.DeadBytes(); err != nil || dead != 0 {
		t.Errorf("DeadBytes = %d, %v; want 0", dead, err)
	}
	if err := p.Verify(); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

// The Create API writes what it is given: only AddFS looks for copies.
func TestCreateKeepsCopies(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WithCompression(0))
	for _, n := range []string{"x", "y"} {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("same bytes"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	objs := openBytes(t, buf.Bytes()).Objects()
	if objs[0].Offset == objs[1].Offset {
		t.Error("Create stored two objects at the same place")
	}
}

// Removing one of two objects that share bytes leaves the bytes in use;
// removing both makes them dead, and Compact keeps the survivor whole.
func TestSharedBytesEdit(t *testing.T) {
	tree := dupTree()
	b := pkgBytes(t, tree, WithSectionSize(64<<10))
	edit := func(b []byte, names ...string) []byte {
		var out bytes.Buffer
		e := NewEditor(&out, openBytes(t, b))
		for _, n := range names {
			if err := e.Remove(n); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	one := edit(b, "b/copy.bin", "big/one.raw")
	if dead, err := openBytes(t, one).DeadBytes(); err != nil || dead != 0 {
		t.Errorf("after removing one copy: DeadBytes = %d, %v; want 0", dead, err)
	}
	both := edit(one, "a/noise.bin", "c/d/again.bin")
	if dead, err := openBytes(t, both).DeadBytes(); err != nil || dead != 40_000 {
		t.Errorf("after removing every copy: DeadBytes = %d, %v; want 40000", dead, err)
	}
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, one))
	e.Compact()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, out.Bytes())
	for _, n := range []string{"a/noise.bin", "c/d/again.bin", "big/two.raw", "b/other.bin"} {
		got, err := fs.ReadFile(p, n)
		if err != nil || !bytes.Equal(got, tree[n].Data) {
			t.Errorf("after Compact, %s: %d bytes, %v", n, len(got), err)
		}
	}
}

// A large file that changes between the read that hashes it and the read
// that stores it is stored as read the second time and known by the hash
// of that: a later file with the bytes the first read saw is not linked to
// it.
func TestAddFSFileChangedMeanwhile(t *testing.T) {
	defer func(n int64) { dedupBuffer = n }(dedupBuffer)
	dedupBuffer = 1000 // the 160,000-byte big/*.raw are large files
	tree := dupTree()
	// The same first 64 KiB as big/one.raw, then other bytes: only
	// hashing all of it tells it apart.
	altered := bytes.Clone(tree["big/one.raw"].Data)
	altered[100_000] ^= 0xFF
	tree["big/zthree.raw"] = &fstest.MapFile{Data: altered}
	fsys := &changingFS{MapFS: tree, name: "big/two.raw", first: altered}
	p := openBytes(t, pkgBytes(t, fsys))
	if fsys.opened != 2 {
		t.Fatalf("big/two.raw opened %d times, want 2", fsys.opened)
	}
	for _, n := range []string{"big/one.raw", "big/two.raw", "big/zthree.raw"} {
		got, err := fs.ReadFile(p, n)
		if err != nil || !bytes.Equal(got, tree[n].Data) {
			t.Errorf("%s: %d bytes, %v; want its %d bytes", n, len(got), err, len(tree[n].Data))
		}
	}
}

// A large file whose first bytes differ from every stored file's of its
// size is read once.
func TestAddFSLargeFilesReadOnce(t *testing.T) {
	defer func(n int64) { dedupBuffer = n }(dedupBuffer)
	dedupBuffer = 1000
	tree := dupTree()
	other := bytes.Clone(tree["big/one.raw"].Data)
	other[10] ^= 0xFF
	tree["big/other.raw"] = &fstest.MapFile{Data: other}
	fsys := &countingFS{MapFS: tree, opens: map[string]int{}}
	p := openBytes(t, pkgBytes(t, fsys))
	for _, n := range []string{"big/one.raw", "big/other.raw", "big/two.raw"} {
		if fsys.opens[n] != 1 {
			t.Errorf("%s opened %d times, want once", n, fsys.opens[n])
		}
		got, err := fs.ReadFile(p, n)
		if err != nil || !bytes.Equal(got, tree[n].Data) {
			t.Errorf("%s: %d bytes, %v", n, len(got), err)
		}
	}
}

// Files up to dedupBuffer are opened once, copies or not.
func TestAddFSOpensSmallFilesOnce(t *testing.T) {
	fsys := &countingFS{MapFS: dupTree(), opens: map[string]int{}}
	pkgBytes(t, fsys)
	for name, n := range fsys.opens {
		if n != 1 && name != "." && !strings.HasSuffix(name, "/") && fsys.MapFS[name] != nil {
			t.Errorf("%s opened %d times", name, n)
		}
	}
}

// countingFS counts the opens of each name.
type countingFS struct {
	fstest.MapFS
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.opens[name]++
	return c.MapFS.Open(name)
}

// changingFS serves first as the content of the file name when it is
// first opened, and its content in MapFS from then on.
type changingFS struct {
	fstest.MapFS
	name   string
	first  []byte
	opened int
}

func (c *changingFS) Open(name string) (fs.File, error) {
	if name == c.name {
		c.opened++
		if c.opened == 1 {
			return fstest.MapFS{name: {Data: c.first}}.Open(name)
		}
	}
	return c.MapFS.Open(name)
}

// A small file that grew after it was listed fails AddFS, as it does
// without copies, rather than being cut short or linked to a copy of its
// first bytes.
func TestAddFSFileGrew(t *testing.T) {
	defer func(n int64) { dedupBuffer = n }(dedupBuffer)
	dedupBuffer = 40_000 // the size b/copy.bin is listed with
	tree := dupTree()
	grown := append(bytes.Clone(tree["a/noise.bin"].Data), "more"...)
	fsys := &growingFS{MapFS: tree, name: "b/copy.bin", data: grown}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	err := w.AddFS(fsys)
	w.Close()
	if err == nil {
		t.Fatal("AddFS of a file that grew after the walk succeeded")
	}
}

// growingFS lists the file name with its MapFS size and serves data when
// it is opened.
type growingFS struct {
	fstest.MapFS
	name string
	data []byte
}

func (g *growingFS) Open(name string) (fs.File, error) {
	if name == g.name {
		return fstest.MapFS{name: {Data: g.data}}.Open(name)
	}
	return g.MapFS.Open(name)
}
