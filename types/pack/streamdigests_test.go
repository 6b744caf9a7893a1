package pack

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// streamTree is a game's tree: a stored music file larger than a quarter
// of the default cache, a smaller one, and text.
func streamTree() fstest.MapFS {
	rnd := rand.New(rand.NewChaCha8([32]byte{43, 2}))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		return b
	}
	return fstest.MapFS{
		"music/theme.ogg": {Data: noise(6<<20 + 12345)},
		"music/short.ogg": {Data: noise(700 << 10)},
		"sfx/click.ogg":   {Data: noise(20 << 10)},
		"data/units.cfg":  {Data: bytes.Repeat([]byte("[unit]\nname=Elvish Fighter\n[/unit]\n"), 2000)},
	}
}

// streamRead opens name in p, seeks to its middle and reads n bytes in
// reads of 4 KiB, as a music decoder does, and returns them.
func streamRead(t *testing.T, p fs.FS, name string, n int) []byte {
	t.Helper()
	f, err := p.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	mid := fi.Size() / 2
	if _, err := f.(io.Seeker).Seek(mid, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 0, n)
	buf := make([]byte, 4096)
	for len(out) < n {
		k, err := f.Read(buf[:min(len(buf), n-len(out))])
		out = append(out, buf[:k]...)
		if err != nil {
			t.Fatalf("%s at %d: %v", name, mid+int64(len(out)), err)
		}
	}
	return out
}

// TestStreamDigests: a large stored file of an unsigned package is read
// in the 64 KiB chunks a stream asks for, each checked against its
// SectionStreamDigests entry: seeking to the middle and reading 128 KiB
// reads about that from the package, not the whole file (before the
// section, 12 MiB: the file through Section.OpenVerified, whole once
// before the first byte and again up to the middle).
func TestStreamDigests(t *testing.T) {
	tree := streamTree()
	b := pkgBytes(t, tree)
	cr := &countingReaderAt{r: bytes.NewReader(b)}
	p, err := NewReader(cr, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Reader.FindSection(SectionStreamDigests)
	if s == nil {
		t.Fatal("no SectionStreamDigests in a package with large stored files")
	}
	l := p.streamList()
	if l == nil {
		t.Fatal("SectionStreamDigests not usable")
	}
	for name, f := range tree {
		listed := l.lookup(streamKey{objectDigest(f.Data), uint64(len(f.Data))}) != nil
		if want := len(f.Data) >= StreamDigestsMin && name != "data/units.cfg"; listed != want {
			t.Errorf("%s (%d bytes) listed: %v, want %v", name, len(f.Data), listed, want)
		}
	}

	opened := cr.n.Load()
	const n = 128 << 10
	got := streamRead(t, p, "music/theme.ogg", n)
	data := tree["music/theme.ogg"].Data
	mid := len(data) / 2
	if !bytes.Equal(got, data[mid:mid+n]) {
		t.Fatal("streamed bytes differ from the file's")
	}
	read := cr.n.Load() - opened
	bound := int64(n + 2*streamChunkSizeWrite)
	t.Logf("open read %d bytes, the stream %d (file %d)", opened, read, len(data))
	if read > bound {
		t.Errorf("streaming %d bytes from the middle read %d bytes of the package, more than %d", n, read, bound)
	}
	if k := p.streams.opened.Load(); k != 0 {
		t.Errorf("%d section decoders started to stream a stored file", k)
	}

	// Every path reads the same bytes: whole, through ReadAt at
	// unaligned places, and past the last chunk's start.
	for _, name := range []string{"music/theme.ogg", "music/short.ogg"} {
		whole, err := fs.ReadFile(p, name)
		if err != nil || !bytes.Equal(whole, tree[name].Data) {
			t.Fatalf("ReadFile %s: %v", name, err)
		}
		f, _ := p.Open(name)
		ra := f.(io.ReaderAt)
		size := len(tree[name].Data)
		for _, at := range []int{0, 1, 65535, 65536, 100_000, size - 70_000, size - 1} {
			buf := make([]byte, 70_000)
			k, err := ra.ReadAt(buf, int64(at))
			want := tree[name].Data[at:min(size, at+len(buf))]
			if !bytes.Equal(buf[:k], want) || (k < len(buf)) != (err == io.EOF) || err != nil && err != io.EOF {
				t.Errorf("%s ReadAt %d: %d bytes, %v", name, at, k, err)
			}
		}
		f.Close()
	}
	if err := p.VerifyAll(); err != nil {
		t.Errorf("VerifyAll: %v", err)
	}
}

// TestStreamDigestsPathIndex: a file found through a path index streams
// too, its entry found by the index's digest.
func TestStreamDigestsPathIndex(t *testing.T) {
	tree := streamTree()
	b := pkgBytes(t, tree, WithPathIndex(true))
	if openBytes(t, b).Reader.FindSection(SectionPathIndex) == nil {
		t.Fatal("no path index")
	}
	cr := &countingReaderAt{r: bytes.NewReader(b)}
	p, err := NewReader(cr, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	opened := cr.n.Load()
	const n = 128 << 10
	got := streamRead(t, p, "music/theme.ogg", n)
	data := tree["music/theme.ogg"].Data
	if !bytes.Equal(got, data[len(data)/2:len(data)/2+n]) {
		t.Fatal("streamed bytes differ")
	}
	if read := cr.n.Load() - opened; read > n+2*streamChunkSizeWrite+64<<10 {
		t.Errorf("streaming through the path index read %d bytes", read)
	}
}

// TestStreamDigestsRemote: over HTTP, opening a package, seeking to the
// middle of a 6 MiB stored file and reading 128 KiB fetches at most
// 1 MiB in all, with the remote reader's defaults.
func TestStreamDigestsRemote(t *testing.T) {
	tree := streamTree()
	// Many small files ahead of the music, so that the tables are
	// those of a game's package.
	for i := range 3000 {
		tree["data/units/"+string(rune('a'+i%26))+"/unit"+strconv.Itoa(i)+".cfg"] = &fstest.MapFile{Data: []byte("[unit]\nid=" + strconv.Itoa(i) + "\n[/unit]\n")}
	}
	b := pkgBytes(t, tree)
	srv := newCountingServer(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := remote.Open(ctx, srv.URL+"/game.bpx")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := NewReader(f, f.Size())
	if err != nil {
		t.Fatal(err)
	}
	const n = 128 << 10
	got := streamRead(t, p, "music/theme.ogg", n)
	data := tree["music/theme.ogg"].Data
	if !bytes.Equal(got, data[len(data)/2:len(data)/2+n]) {
		t.Fatal("streamed bytes differ")
	}
	sent, ranges := srv.served()
	t.Logf("served %d bytes of %d in %d requests: %v", sent, len(b), len(ranges), ranges)
	if sent > 1<<20 {
		t.Errorf("opening and streaming 128 KiB served %d bytes, more than 1 MiB", sent)
	}
}

// TestStreamDigestsDamage: a changed byte of a streamed file fails the
// reads of its chunk (an ErrChecksum naming the file) and no other; a
// damaged list is passed over (the file is read whole, checked against
// its digest); a list that lies about a chunk, under a valid checksum,
// fails that chunk's reads, and VerifyAll reports it.
func TestStreamDigestsDamage(t *testing.T) {
	tree := streamTree()
	good := pkgBytes(t, tree)
	data := tree["music/theme.ogg"].Data
	at := bytes.Index(good, data)
	if at < 0 {
		t.Fatal("file not stored in place")
	}

	t.Run("file", func(t *testing.T) {
		b := bytes.Clone(good)
		b[at+3<<20+100] ^= 1 // chunk 48
		p := openBytes(t, b)
		f, err := p.Open("music/theme.ogg")
		if err != nil {
			t.Fatal(err)
		}
		ra := f.(io.ReaderAt)
		buf := make([]byte, 64<<10)
		if _, err := ra.ReadAt(buf, 1<<20); err != nil || !bytes.Equal(buf, data[1<<20:1<<20+len(buf)]) {
			t.Errorf("a good chunk: %v", err)
		}
		_, err = ra.ReadAt(buf[:10], 3<<20+95)
		var oe *ObjectError
		if !errors.Is(err, bpx.ErrChecksum) || !errors.As(err, &oe) || oe.Name != "music/theme.ogg" {
			t.Errorf("the changed chunk: %v", err)
		}
		if _, err := fs.ReadFile(p, "music/theme.ogg"); !errors.Is(err, bpx.ErrChecksum) {
			t.Errorf("ReadFile: %v", err)
		}
		if err := p.VerifyAll(); !errors.Is(err, bpx.ErrChecksum) {
			t.Errorf("VerifyAll: %v", err)
		}
	})

	t.Run("list damaged", func(t *testing.T) {
		b := bytes.Clone(good)
		s := openBytes(t, b).Reader.FindSection(SectionStreamDigests)
		b[int(s.Pointer)+int(s.StoredSize())-3] ^= 0x40
		p := openBytes(t, b)
		if p.streamList() != nil {
			t.Fatal("a list failing its checksum is used")
		}
		if got, err := fs.ReadFile(p, "music/theme.ogg"); err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadFile without the list: %v", err)
		}
		if err := p.VerifyAll(); !errors.Is(err, bpx.ErrChecksum) {
			t.Errorf("VerifyAll of a damaged list: %v", err)
		}
	})

	t.Run("list lies", func(t *testing.T) {
		p := openBytes(t, good)
		list := bytes.Clone(sectionBytes(p.Reader, SectionStreamDigests))
		sums := p.streamList().lookup(streamKey{objectDigest(data), uint64(len(data))})
		i := bytes.Index(list, sums) + 10*streamDigestSize // chunk 10
		binary.LittleEndian.PutUint32(list[i:], crc32.Checksum([]byte("other bytes"), castagnoli))
		p = openBytes(t, replaceSection(t, good, SectionStreamDigests, bpx.ChecksumWeak, func([]byte) []byte { return list }))
		if p.streamList() == nil {
			t.Fatal("the list is not used")
		}
		f, _ := p.Open("music/theme.ogg")
		ra := f.(io.ReaderAt)
		buf := make([]byte, 1000)
		if _, err := ra.ReadAt(buf, 10<<16+5); !errors.Is(err, bpx.ErrChecksum) {
			t.Errorf("a chunk the list lies about: %v", err)
		}
		if _, err := ra.ReadAt(buf, 11<<16); err != nil || !bytes.Equal(buf, data[11<<16:11<<16+1000]) {
			t.Errorf("the next chunk: %v", err)
		}
		err := p.VerifyAll()
		if !errors.Is(err, bpx.ErrChecksum) || !bytes.Contains([]byte(err.Error()), []byte("SectionStreamDigests")) {
			t.Errorf("VerifyAll of a list that lies: %v", err)
		}
	})

	t.Run("list malformed", func(t *testing.T) {
		p := openBytes(t, good)
		list := bytes.Clone(sectionBytes(p.Reader, SectionStreamDigests))
		list[1] = 30 // chunks of 1 GiB
		p = openBytes(t, replaceSection(t, good, SectionStreamDigests, bpx.ChecksumWeak, func([]byte) []byte { return list }))
		if p.streamList() != nil {
			t.Fatal("a malformed list is used")
		}
		if got, err := fs.ReadFile(p, "music/theme.ogg"); err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadFile without the list: %v", err)
		}
		if err := p.VerifyAll(); !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("VerifyAll of a malformed list: %v", err)
		}
	})
}

// TestStreamDigestsEdit: an edit keeps the entries of the large stored
// files it keeps, lists those it adds, and drops those it removes.
func TestStreamDigestsEdit(t *testing.T) {
	tree := streamTree()
	src := openBytes(t, pkgBytes(t, tree))
	var out bytes.Buffer
	e := NewEditor(&out, src)
	var added []byte
	rnd := rand.New(rand.NewChaCha8([32]byte{43, 3}))
	for range 300 << 10 {
		added = append(added, byte(rnd.Uint32()))
	}
	w, err := e.CreateSized("music/new.ogg", int64(len(added)))
	if err == nil {
		_, err = w.Write(added)
	}
	if err == nil {
		err = e.Remove("music/short.ogg")
	}
	if err == nil {
		err = e.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, out.Bytes())
	l := p.streamList()
	for _, c := range []struct {
		data   []byte
		listed bool
	}{{tree["music/theme.ogg"].Data, true}, {added, true}, {tree["music/short.ogg"].Data, false}} {
		if got := l.lookup(streamKey{objectDigest(c.data), uint64(len(c.data))}) != nil; got != c.listed {
			t.Errorf("%d bytes: listed %v, want %v", len(c.data), got, c.listed)
		}
	}
	if got, err := fs.ReadFile(p, "music/new.ogg"); err != nil || !bytes.Equal(got, added) {
		t.Errorf("the added file: %v", err)
	}
	if err := p.VerifyAll(); err != nil {
		t.Errorf("VerifyAll: %v", err)
	}
}

// TestStreamSumsClash: two contents of the same CRC-32C and size are both
// left out of the list, which could describe only one of them.
func TestStreamSumsClash(t *testing.T) {
	var s streamSums
	k := streamKey{0xdeadbeef, 300 << 10}
	s.add(streamKey{1, 300 << 10}, []uint32{1, 2, 3, 4, 5})
	s.add(k, []uint32{1, 2, 3, 4, 5})
	s.add(k, []uint32{1, 2, 3, 4, 6})
	s.add(streamKey{2, 300 << 10}, []uint32{7, 2, 3, 4, 5})
	s.add(streamKey{2, 300 << 10}, []uint32{7, 2, 3, 4, 5}) // the same bytes twice
	l, err := parseStreamDigests(s.marshal())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.first) != 2 || l.lookup(k) != nil || l.lookup(streamKey{1, 300 << 10}) == nil || l.lookup(streamKey{2, 300 << 10}) == nil {
		t.Errorf("%d entries; the clashing key listed: %v", len(l.first), l.lookup(k) != nil)
	}
}

// TestParseStreamDigests: malformed lists are refused with the reason.
func TestParseStreamDigests(t *testing.T) {
	var s streamSums
	s.add(streamKey{5, 100_000}, []uint32{1, 2})
	s.add(streamKey{9, 65536}, []uint32{3})
	good := s.marshal()
	if _, err := parseStreamDigests(good); err != nil {
		t.Fatal(err)
	}
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for name, b := range map[string][]byte{
		"short":        good[:7],
		"version":      mod(func(b []byte) []byte { b[0] = 2; return b }),
		"reserved":     mod(func(b []byte) []byte { b[3] = 1; return b }),
		"chunk log":    mod(func(b []byte) []byte { b[1] = 11; return b }),
		"entries":      mod(func(b []byte) []byte { b[4] = 200; return b }),
		"order":        mod(func(b []byte) []byte { b[8] = 10; return b }),
		"size 0":       mod(func(b []byte) []byte { clear(b[12:20]); return b }),
		"digest short": good[:len(good)-4],
		"digest long":  append(bytes.Clone(good), 0, 0, 0, 0),
		"huge size":    mod(func(b []byte) []byte { b[19] = 0x80; return b }),
		"odd tail":     append(bytes.Clone(good), 0),
	} {
		if _, err := parseStreamDigests(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// FuzzParseStreamDigests: any bytes parse or fail without a panic, and a
// parsed list's lookups stay inside it.
func FuzzParseStreamDigests(f *testing.F) {
	var s streamSums
	s.add(streamKey{5, 100_000}, []uint32{1, 2})
	s.add(streamKey{9, 65536}, []uint32{3})
	f.Add(s.marshal())
	f.Add([]byte{1, 16, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseStreamDigests(b)
		if err != nil {
			return
		}
		for i := range l.first {
			k := l.key(i)
			if d := l.lookup(k); uint64(len(d)) != chunkCount(k.size, l.log)*streamDigestSize {
				t.Fatalf("entry %d: %d bytes of digests for %d bytes", i, len(d), k.size)
			}
		}
	})
}

// TestStreamDigestsSpanning: a stored file larger than a stored section
// spans sections; it streams the same, and VerifyAll, whose section
// checks see only objects inside one section, checks its chunks too.
func TestStreamDigestsSpanning(t *testing.T) {
	tree := streamTree()
	b := pkgBytes(t, tree, WithSectionSize(256<<10)) // stored sections of 4 MiB
	p := openBytes(t, b)
	r, err := p.OpenObject(slices.IndexFunc(p.Objects(), func(o Object) bool { return o.Name == "music/theme.ogg" }))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.segs) < 2 || r.csums == nil {
		t.Fatalf("the file lies in %d sections, chunk digests %v", len(r.segs), r.csums != nil)
	}
	data := tree["music/theme.ogg"].Data
	split := int(r.segs[1].start) // the first byte in the second section
	buf := make([]byte, 100_000)
	if _, err := r.ReadAt(buf, int64(split-50_000)); err != nil || !bytes.Equal(buf, data[split-50_000:split+50_000]) {
		t.Fatalf("a read across sections: %v", err)
	}
	if err := p.VerifyAll(); err != nil {
		t.Fatalf("VerifyAll: %v", err)
	}

	list := bytes.Clone(sectionBytes(p.Reader, SectionStreamDigests))
	sums := p.streamList().lookup(streamKey{objectDigest(data), uint64(len(data))})
	c := split>>streamChunkLog + 1
	i := bytes.Index(list, sums) + c*streamDigestSize
	binary.LittleEndian.PutUint32(list[i:], 12345)
	p = openBytes(t, replaceSection(t, b, SectionStreamDigests, bpx.ChecksumWeak, func([]byte) []byte { return list }))
	err = p.VerifyAll()
	if !errors.Is(err, bpx.ErrChecksum) || !strings.Contains(err.Error(), "SectionStreamDigests") {
		t.Errorf("VerifyAll of a list that lies about a chunk of a file across sections: %v", err)
	}
}

// TestStreamDigestsEditOtherChunks: an edit of a package whose list has
// chunks of another size than the Writer's drops those entries rather
// than write them under the Writer's size.
func TestStreamDigestsEditOtherChunks(t *testing.T) {
	tree := streamTree()
	good := pkgBytes(t, tree, WithChunkDigests(false)) // a list of another size moves the sections they cover
	// The list again, in 4 KiB chunks.
	var s streamSums
	for _, name := range []string{"music/theme.ogg", "music/short.ogg"} {
		d := tree[name].Data
		var sums []uint32
		for i := 0; i < len(d); i += 4096 {
			sums = append(sums, crc32.Checksum(d[i:min(len(d), i+4096)], castagnoli))
		}
		s.add(streamKey{objectDigest(d), uint64(len(d))}, sums)
	}
	list := s.marshal()
	list[1] = 12
	b := replaceSection(t, good, SectionStreamDigests, bpx.ChecksumWeak, func([]byte) []byte { return list })
	p := openBytes(t, b)
	if p.streamList() == nil {
		t.Fatal("a list of 4 KiB chunks is not used")
	}
	if err := p.VerifyAll(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := NewEditor(&out, p)
	if err := e.Remove("sfx/click.ogg"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	q := openBytes(t, out.Bytes())
	if s := q.Reader.FindSection(SectionStreamDigests); s != nil {
		if _, err := parseStreamDigests(sectionBytes(q.Reader, SectionStreamDigests)); err != nil {
			t.Errorf("the edited list does not parse: %v", err)
		}
	}
	if err := q.VerifyAll(); err != nil {
		t.Errorf("edited: %v", err)
	}
}
