package pack

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
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

// A file that changes between the search for copies and its copy into the
// package is stored as read, and its former copies on their own.
func TestAddFSFileChangedMeanwhile(t *testing.T) {
	tree := dupTree()
	fsys := &changingFS{MapFS: tree, name: "a/noise.bin"}
	b := pkgBytes(t, fsys)
	p := openBytes(t, b)
	for _, n := range []string{"a/noise.bin", "b/copy.bin", "c/d/again.bin"} {
		got, err := fs.ReadFile(p, n)
		want := tree[n].Data
		if n == "a/noise.bin" {
			want = fsys.changed
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes read when packed", n, len(got), err, len(want))
		}
	}
}

// changingFS changes the file name (keeping its size) after it has been
// opened once.
type changingFS struct {
	fstest.MapFS
	name    string
	opened  int
	changed []byte
}

func (c *changingFS) Open(name string) (fs.File, error) {
	if name == c.name {
		c.opened++
		if c.opened == 2 {
			c.changed = bytes.Clone(c.MapFS[name].Data)
			c.changed[0] ^= 0xFF
			c.MapFS[name] = &fstest.MapFile{Data: c.changed}
		}
	}
	return c.MapFS.Open(name)
}

// DeadBytes counts shared bytes once: a section with a shared object and
// a removed one reports the removed one's bytes as dead.
func TestDeadBytesShared(t *testing.T) {
	tree := dupTree()
	small := fstest.MapFS{
		"a/noise.bin": tree["a/noise.bin"],
		"b/copy.bin":  tree["b/copy.bin"],
		"x.bin":       {Data: bytes.Repeat([]byte{'x'}, 20_000)},
	}
	b := pkgBytes(t, small, WithSectionSize(64<<10))
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, b))
	if err := e.Remove("x.bin"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, out.Bytes())
	if dead, err := p.DeadBytes(); err != nil || dead != 20_000 {
		t.Errorf("DeadBytes = %d, %v; want 20000", dead, err)
	}
	// Compact cuts exactly those bytes out.
	var comp bytes.Buffer
	e = NewEditor(&comp, p)
	e.Compact()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	pc := openBytes(t, comp.Bytes())
	var data uint64
	for _, s := range pc.Reader.Sections {
		if s.Type == SectionData {
			data += uint64(s.USize)
		}
	}
	if data != 40_000 {
		t.Errorf("after Compact the data sections hold %d bytes, want 40000", data)
	}
}

// WithAddProgress reports every file's bytes once, copies included, and
// not the reads that look for copies.
func TestAddProgress(t *testing.T) {
	tree := dupTree()
	var want int64
	for _, f := range tree {
		want += int64(len(f.Data))
	}
	got := map[string]int64{}
	pkgBytes(t, tree, WithAddProgress(func(name string, n int64) { got[name] += n }))
	var sum int64
	for name, n := range got {
		if n != int64(len(tree[name].Data)) {
			t.Errorf("%s: reported %d bytes, want %d", name, n, len(tree[name].Data))
		}
		sum += n
	}
	if sum != want {
		t.Errorf("reported %d bytes in all, want %d", sum, want)
	}
}
