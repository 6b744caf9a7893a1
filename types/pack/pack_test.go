package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

func treeNames(m fstest.MapFS) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestRoundTripDirFS(t *testing.T) {
	tree := testTree()
	src := t.TempDir()
	writeTree(t, src, tree)
	for _, tc := range []struct {
		name string
		opts []WriterOption
	}{
		{"xz", nil},
		{"zlib-small-sections", []WriterOption{WithCompression(bpx.CompressZlib), WithSectionSize(4096)}},
		{"none", []WriterOption{WithCompression(bpx.CompressNone), WithChecksum(bpx.ChecksumNone)}},
		{"xz-tables", []WriterOption{WithSectionSize(1000), CompressTables()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "p.bpx")
			f, err := os.Create(file)
			if err != nil {
				t.Fatal(err)
			}
			w := NewWriter(f, tc.opts...)
			if err := w.AddFS(os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			p, err := Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if err := fstest.TestFS(p, treeNames(tree)...); err != nil {
				t.Fatal(err)
			}
			if err := p.Verify(); err != nil {
				t.Errorf("Verify: %v", err)
			}
			out := filepath.Join(t.TempDir(), "out")
			if err := p.Unpack(out); err != nil {
				t.Fatal(err)
			}
			compareTrees(t, src, out)
			// A second unpack finishes what the first left (an unpack
			// run again), but must not overwrite a file changed since.
			if err := p.Unpack(out); err != nil {
				t.Errorf("Unpack again: %v", err)
			}
			if err := appendToFiles(out); err != nil {
				t.Fatal(err)
			}
			if err := p.Unpack(out); !errors.Is(err, fs.ErrExist) {
				t.Errorf("second Unpack = %v, want fs.ErrExist", err)
			}
			if err := p.Unpack(out, Overwrite(), WithUnpackConcurrency(1)); err != nil {
				t.Errorf("Unpack with Overwrite: %v", err)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	var buf bytes.Buffer
	ext := TypeExt{Arch: ArchAArch64, Platform: PlatformAndroid, Generator: GeneratorFPKG}
	w := NewWriter(&buf, WithSectionSize(100))
	w.SetTypeExt(ext)
	meta := sd.NewObject().Set("name", sd.String("demo"))
	if err := w.SetMetadata(meta); err != nil {
		t.Fatal(err)
	}
	add := func(name string, data []byte, sized bool) {
		var ow io.Writer
		var err error
		if sized {
			ow, err = w.CreateSized(name, int64(len(data)))
		} else {
			ow, err = w.Create(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ow.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	add("a", bytes.Repeat([]byte("a"), 30), false)
	add("b", bytes.Repeat([]byte("b"), 30), true)
	add("big", bytes.Repeat([]byte("B"), 250), true) // own sections: 100+100+50
	add("c", []byte("c"), false)
	add("span", bytes.Repeat([]byte("s"), 150), false) // large once its size is known: own sections, 100 then 50
	add("e", nil, false)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes())
	rd := p.Reader
	var types []uint8
	for _, s := range rd.Sections {
		types = append(types, s.Type)
	}
	wantTypes := []uint8{SectionObjectTable, SectionStrings, SectionMetadata, SectionDigests, 1, 1, 1, 1, 1, 1, 1}
	if !bytes.Equal(types, wantTypes) {
		t.Errorf("section types %v, want %v", types, wantTypes)
	}
	if p.TypeExt != ext || rd.Header.Version != 2 {
		t.Errorf("TypeExt %+v version %d", p.TypeExt, rd.Header.Version)
	}
	if md := rd.FindSection(SectionMetadata); md.USize != uint32(len(mustEncode(t, meta))) {
		t.Errorf("metadata section is %d bytes, want one object of %d", md.USize, len(mustEncode(t, meta)))
	}
	got, err := p.Metadata()
	if err != nil || !got.Equal(meta) {
		t.Errorf("Metadata = %v, %v", got, err)
	}
	want := []struct {
		name          string
		size          uint64
		start, offset uint32
	}{
		{"a", 30, 4, 0}, {"b", 30, 4, 30}, {"big", 250, 5, 0}, {"c", 1, 8, 0}, {"span", 150, 9, 0}, {"e", 0, 10, 50},
	}
	for i, wo := range want {
		o := p.Objects()[i]
		if o.Name != wo.name || o.Size != wo.size || o.Start != wo.start || o.Offset != wo.offset {
			t.Errorf("object %d = %s %d start %d offset %d, want %+v", i, o.Name, o.Size, o.Start, o.Offset, wo)
		}
	}
	b, err := p.ReadFile("span")
	if err != nil || !bytes.Equal(b, bytes.Repeat([]byte("s"), 150)) {
		t.Errorf("span = %q, %v", b, err)
	}
}

func mustEncode(t *testing.T, o *sd.Object) []byte {
	b, err := sd.Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriterRefuses(t *testing.T) {
	w := NewWriter(io.Discard)
	defer w.Close()
	for _, name := range []string{"../x", "/abs", "", ".", "a//b", "a/"} {
		if _, err := w.Create(name); !errors.Is(err, ErrInsecurePath) {
			t.Errorf("Create(%q) = %v, want ErrInsecurePath", name, err)
		}
	}
	if _, err := w.Create("ok"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Create("ok"); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("duplicate Create = %v", err)
	}
	ow, err := w.CreateSized("sized", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ow.Write([]byte("toolong")); err == nil {
		t.Error("writing past the declared size succeeded")
	}
	ow.Write([]byte("ab"))
	if _, err := w.Create("next"); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("Create after a short sized object = %v, want io.ErrShortWrite", err)
	}
}

func TestMetadataValue(t *testing.T) {
	type meta struct {
		Name    string `sd:"name"`
		Version uint32 `sd:"version"`
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.SetMetadataValue(meta{"m", 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got meta
	if err := openBytes(t, buf.Bytes()).UnmarshalMetadata(&got); err != nil || got != (meta{"m", 3}) {
		t.Errorf("UnmarshalMetadata = %+v, %v", got, err)
	}
}

// TestCacheOneDecompressionPerSection reads every object in random order
// and counts the section decompressions.
func TestCacheOneDecompressionPerSection(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 300 {
		m[filepath.ToSlash(filepath.Join("d", strings.Repeat("x", i%7), string(rune('a'+i%26))+strconv.Itoa(i)))] = &fstest.MapFile{Data: bytes.Repeat([]byte(strconv.Itoa(i)), 50+i)}
	}
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p := openBytes(t, b)
	names := treeNames(m)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range names[w*len(names)/4 : (w+1)*len(names)/4] {
				got, err := p.ReadFile(n)
				if err != nil || !bytes.Equal(got, m[n].Data) {
					t.Errorf("ReadFile(%s): %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	p.cache.close() // a read-ahead may still run
	data := len(p.Reader.SectionsOfType(SectionData))
	if data < 5 || p.cache.loads != data {
		t.Errorf("%d section loads for %d data sections", p.cache.loads, data)
	}
}

// TestCacheRecyclesBuffers: with a cache of a few sections, concurrent
// readers in random order get correct bytes (a recycled buffer is never
// refilled while someone copies from it; -race checks that too), and
// loads reuse the buffers of evicted sections.
func TestCacheRecyclesBuffers(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 400 {
		m["f"+strconv.Itoa(i)] = &fstest.MapFile{Data: bytes.Repeat([]byte(strconv.Itoa(i*7919)), 40+i%300)}
	}
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	// Room for about four sections decoded in part, each counted with its
	// decoder (about 80 KiB for zlib).
	p := openBytes(t, b, WithCacheSize(4*(8192+90<<10)))
	names := treeNames(m)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := slices.Clone(names)
			rand.New(rand.NewPCG(uint64(w), 9)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, n := range order {
				got, err := p.ReadFile(n)
				if err != nil || !bytes.Equal(got, m[n].Data) {
					t.Errorf("ReadFile(%s): %v", n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	p.cache.close() // a read-ahead may still run
	if p.cache.reused == 0 || p.cache.loads <= len(p.Reader.SectionsOfType(SectionData)) {
		t.Errorf("%d loads, %d into recycled buffers: the cache did not evict and recycle", p.cache.loads, p.cache.reused)
	}
}

// TestSeekAndReadAt reads an object spanning compressed sections with
// Seek, Read and concurrent ReadAt, with and without the cache (streaming).
func TestSeekAndReadAt(t *testing.T) {
	data := make([]byte, 100_000)
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(rnd.IntN(16))
	}
	b := pkgBytes(t, fstest.MapFS{"obj": {Data: data}}, WithSectionSize(16<<10))
	for _, cacheSize := range []int64{DefaultCacheSize, 0} {
		p := openBytes(t, b, WithCacheSize(cacheSize))
		f, err := p.Open("obj")
		if err != nil {
			t.Fatal(err)
		}
		rs := f.(io.ReadSeeker)
		for _, off := range []int64{50_000, 10, 99_990, 16383, 0} {
			if _, err := rs.Seek(off, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 20_000)
			n, err := io.ReadFull(rs, got)
			if want := min(int64(len(got)), int64(len(data))-off); int64(n) != want || !bytes.Equal(got[:n], data[off:off+want]) {
				t.Errorf("cache %d: read at %d: %d bytes, %v", cacheSize, off, n, err)
			}
		}
		ra := f.(io.ReaderAt)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					off := int64((g*7919 + i*4001) % len(data))
					got := make([]byte, 3000)
					n, err := ra.ReadAt(got, off)
					if n < len(got) && err != io.EOF || !bytes.Equal(got[:n], data[off:off+int64(n)]) {
						t.Errorf("ReadAt(%d) = %d, %v", off, n, err)
					}
				}
			}()
		}
		wg.Wait()
		f.Close()
		if _, err := ra.ReadAt(make([]byte, 1), 0); err == nil {
			t.Error("ReadAt after Close succeeded")
		}
	}
}

func TestRevision1(t *testing.T) {
	hdr := func(size uint64, name uint32) []byte {
		var b [InlineHeaderSize]byte
		b[0], b[1] = byte(size), byte(size>>8)
		b[8] = byte(name)
		return b[:]
	}
	// Object "one" (5 bytes) continues from the first data section into
	// the second; "two" is empty; "three" follows in the third section,
	// which comes after a non-data section in the table.
	d1 := append(hdr(5, 0), "ab"...)
	d2 := append([]byte("cde"), hdr(0, 4)...)
	d3 := append(hdr(3, 8), "xyz"...)
	ext := [16]byte{4, 4, 'B', 'D'}
	b := rawPackage(t, 1, ext, []rawSection{
		{typ: 0xFF, data: []byte("one\x00two\x00three\x00")},
		{typ: 1, data: d1},
		{typ: 1, comp: bpx.CompressXZ, data: d2},
		{typ: 7, data: []byte("not data")},
		{typ: 1, data: d3},
	})
	p := openBytes(t, b)
	if p.Revision != 1 || len(p.Objects()) != 3 {
		t.Fatalf("revision %d, %d objects", p.Revision, len(p.Objects()))
	}
	for name, want := range map[string]string{"one": "abcde", "two": "", "three": "xyz"} {
		got, err := p.ReadFile(name)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if o := p.Objects()[2]; o.Start != 4 || o.Offset != 12 {
		t.Errorf("three at start %d offset %d, want 4, 12", o.Start, o.Offset)
	}
	// A truncated inline header is an error at open.
	bad := rawPackage(t, 1, ext, []rawSection{{typ: 0xFF, data: []byte("a\x00")}, {typ: 1, data: append(hdr(1, 0), 'a', 0, 0)}})
	if _, err := NewReader(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "truncated inline object header") {
		t.Errorf("truncated header: %v", err)
	}
	// An object longer than the data is listed and fails to read.
	short := rawPackage(t, 1, ext, []rawSection{{typ: 0xFF, data: []byte("a\x00")}, {typ: 1, data: append(hdr(10, 0), "abc"...)}})
	p = openBytes(t, short)
	if _, err := p.ReadFile("a"); !errors.Is(err, ErrObjectRange) {
		t.Errorf("short object: %v", err)
	}
}

func TestDraft(t *testing.T) {
	var zbuf bytes.Buffer
	zw := newZlib(&zbuf)
	zw.Write(bytes.Repeat([]byte("compressed asset "), 100))
	zw.Close()
	reg := []byte{
		0, 0, 0, 0, 2, 0, 0, 0, // "tex/a.raw" -> section 2 (1-based)
		10, 0, 0, 0, 3, 0, 0, 0, // "snd/b.ogg" -> section 3, zlib
		20, 0, 0, 0, 0, 0, 0, 0, // "bad" -> FileId 0 (null)
	}
	b := draftPackage(3, DraftOpenGL|DraftVulkan, []draftSection{
		{typ: 1, data: reg},
		{typ: 2, data: []byte("raw asset")},
		{typ: 2, flags: 0x2, data: zbuf.Bytes()},
		{typ: 3, data: []byte("tex/a.raw\x00snd/b.ogg\x00bad\x00")},
	})
	p := openBytes(t, b)
	if p.Revision != 0 || p.DraftTypeExt != (DraftTypeExt{3, DraftOpenGL | DraftVulkan}) {
		t.Fatalf("revision %d, type ext %+v", p.Revision, p.DraftTypeExt)
	}
	if got, err := p.ReadFile("tex/a.raw"); err != nil || string(got) != "raw asset" {
		t.Errorf("tex/a.raw = %q, %v", got, err)
	}
	got, err := p.ReadFile("snd/b.ogg")
	if err != nil || string(got) != strings.Repeat("compressed asset ", 100) {
		t.Errorf("snd/b.ogg = %d bytes, %v", len(got), err)
	}
	if fi, err := p.Stat("snd/b.ogg"); err != nil || fi.Size() != 1700 {
		t.Errorf("Stat = %v, %v", fi, err)
	}
	if _, err := p.ReadFile("bad"); !errors.Is(err, ErrObjectRange) || !strings.Contains(err.Error(), "FileId 0") {
		t.Errorf("bad = %v", err)
	}
}

// TestInvalidNames packs names that must never be extracted and checks they
// stay visible through the object API only.
func TestInvalidNames(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, AllowInvalidNames())
	names := []string{"ok.txt", "../escape", "/etc/abs", "", "dup", "dup", "a", "a/b", "./dot", "x/../../y"}
	for _, n := range names {
		ow, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(ow, "data of "+n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes())
	if len(p.Objects()) != len(names) {
		t.Fatalf("%d objects, want %d", len(p.Objects()), len(names))
	}
	for i, n := range names {
		if p.Objects()[i].Name != n {
			t.Errorf("object %d is %q, want %q", i, p.Objects()[i].Name, n)
		}
		if b, err := p.ReadObject(i); err != nil || string(b) != "data of "+n {
			t.Errorf("ReadObject(%d) = %q, %v", i, b, err)
		}
	}
	bad := p.InvalidPaths()
	for _, i := range []int{1, 2, 3, 4, 5, 6, 8, 9} {
		if bad[i] == "" {
			t.Errorf("object %d (%q) not reported invalid", i, names[i])
		}
	}
	if len(bad) != 8 {
		t.Errorf("invalid paths %v", bad)
	}
	if err := fstest.TestFS(p, "ok.txt", "a/b"); err != nil {
		t.Error(err)
	}
	if err := p.Verify(); !errors.Is(err, ErrInsecurePath) || errors.Is(err, ErrObjectRange) {
		t.Errorf("Verify = %v", err)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := p.Unpack(dir); !errors.Is(err, ErrInsecurePath) {
		t.Fatalf("Unpack = %v, want ErrInsecurePath", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("refused Unpack wrote %v", ents)
	}
	if err := p.Unpack(dir, SkipInvalid()); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(parent, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(parent, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if strings.Join(got, ",") != "out/a/b,out/ok.txt" {
		t.Errorf("unpacked %v", got)
	}
}

// TestUnpackSymlink refuses to write through a symbolic link in the target
// that leads outside it.
func TestUnpackSymlink(t *testing.T) {
	b := pkgBytes(t, fstest.MapFS{"link/f.txt": {Data: []byte("x")}})
	p := openBytes(t, b)
	outside, dir := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	if err := p.Unpack(dir); err == nil {
		t.Error("Unpack followed a symlink out of the target")
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote outside the target: %v", ents)
	}
	b = pkgBytes(t, fstest.MapFS{"f.txt": {Data: []byte("x")}})
	os.Symlink(filepath.Join(outside, "victim"), filepath.Join(dir, "f.txt"))
	if err := openBytes(t, b).Unpack(dir, Overwrite()); err == nil {
		t.Error("Unpack with Overwrite wrote through a symlink")
	}
	if _, err := os.Lstat(filepath.Join(outside, "victim")); err == nil {
		t.Error("victim created outside the target")
	}
}

// TestUnpackNoTruncation: damaged data is an error and leaves no file.
func TestUnpackNoTruncation(t *testing.T) {
	b := pkgBytes(t, fstest.MapFS{"a": {Data: bytes.Repeat([]byte("a"), 1000)}}, WithCompression(bpx.CompressNone))
	b = b[:len(b)-100] // cut the data short
	p, err := NewReader(bytes.NewReader(b), int64(len(b)), WithReaderOptions(bpx.SkipChecksums()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := p.Unpack(dir); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("Unpack = %v, want ErrFormat", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("partial file left behind: %v", err)
	}
}

func TestNotPackage(t *testing.T) {
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('T')
	w.Close()
	_, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if !errors.Is(err, ErrNotPackage) || !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("err = %v", err)
	}
}

// TestStreamedSectionsDecodeOnce: with no cache, unpacking objects that
// share large sections reuses one decoder per section instead of starting
// one per object.
func TestStreamedSectionsDecodeOnce(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 200 {
		m[fmt.Sprintf("f%03d", i)] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i)}, 1000+i)}
	}
	b := pkgBytes(t, m, WithSectionSize(64<<10))
	p := openBytes(t, b, WithCacheSize(0))
	out := t.TempDir()
	if err := p.Unpack(out, WithUnpackConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	data := len(p.Reader.SectionsOfType(SectionData))
	if got := p.streams.opened.Load(); got != int64(data) {
		t.Errorf("%d decoders started for %d data sections", got, data)
	}
	for name, f := range m {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p.Close()
}

// TestObjectWriteTo: WriteTo writes an object lying in one cached section
// straight from the cache, and any other (spanning sections, stored raw,
// partly read) through Read; the bytes are the same either way, and
// io.Copy from an opened file uses it.
func TestObjectWriteTo(t *testing.T) {
	big := bytes.Repeat([]byte("spans several sections; "), 2000)
	m := fstest.MapFS{"small": {Data: []byte("in one section")}, "big": {Data: big}}
	for _, c := range []bpx.Compression{bpx.CompressZlib, bpx.CompressNone} {
		p := openBytes(t, pkgBytes(t, m, WithCompression(c), WithSectionSize(8192)))
		for name, f := range m {
			i := slices.IndexFunc(p.Objects(), func(o Object) bool { return o.Name == name })
			r, err := p.OpenObject(i)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if n, err := r.WriteTo(&buf); err != nil || n != int64(len(f.Data)) || !bytes.Equal(buf.Bytes(), f.Data) {
				t.Errorf("%v %s: WriteTo = %d, %v", c, name, n, err)
			}
			if n, err := r.WriteTo(&buf); n != 0 || err != nil {
				t.Errorf("%v %s: second WriteTo = %d, %v", c, name, n, err)
			}
			r.Close()
			// Partly read first: the rest comes through Read.
			r, _ = p.OpenObject(i)
			head := make([]byte, 3)
			io.ReadFull(r, head)
			buf.Reset()
			if _, err := r.WriteTo(&buf); err != nil || !bytes.Equal(append(head, buf.Bytes()...), f.Data) {
				t.Errorf("%v %s: WriteTo after Read: %v", c, name, err)
			}
			r.Close()
			fl, err := p.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			buf.Reset()
			if _, err := io.Copy(&buf, fl); err != nil || !bytes.Equal(buf.Bytes(), f.Data) {
				t.Errorf("%v %s: io.Copy from the file: %v", c, name, err)
			}
			fl.Close()
		}
	}
}
