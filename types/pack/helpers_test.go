package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// pkgBytes writes the files of m (in lexical order) into a package.
func pkgBytes(t testing.TB, m fs.FS, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, opts...)
	if err := w.AddFS(m); err != nil {
		t.Fatalf("AddFS: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}

func openBytes(t testing.TB, b []byte, opts ...Option) *Package {
	t.Helper()
	p, err := NewReader(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return p
}

// testTree is a small tree with shared prefixes, nested directories, an
// empty file and incompressible data.
func testTree() fstest.MapFS {
	rnd := rand.New(rand.NewChaCha8([32]byte{1}))
	noise := make([]byte, 70_000)
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog\n"), 3000)
	return fstest.MapFS{
		"hello.txt":             {Data: []byte("Hello, BPX!\n")},
		"empty":                 {Data: nil},
		"dir/a.txt":             {Data: text},
		"dir/sub/b.bin":         {Data: noise},
		"dir/sub/deeper/c.txt":  {Data: []byte("c")},
		"textures/stone.raw":    {Data: append(append([]byte{}, noise...), text...)},
		"utf8-你好/café.txt":      {Data: []byte("café 你好\n")},
		"z/last-after-dirs.txt": {Data: []byte("z")},
	}
}

// writeTree writes m under dir.
func writeTree(t testing.TB, dir string, m fstest.MapFS) {
	t.Helper()
	for name, f := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compareTrees fails unless the regular files under a and b are identical.
func compareTrees(t testing.TB, a, b string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			m[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	fa, fb := files(a), files(b)
	if len(fa) != len(fb) {
		t.Errorf("%d files in %s, %d in %s", len(fa), a, len(fb), b)
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs (%d vs %d bytes)", name, len(data), len(fb[name]))
		}
	}
}

// rawPackage builds a package container by hand from the given sections
// (object table, strings, data, each as bytes), bypassing pack.Writer.
func rawPackage(t testing.TB, version uint32, typeExt [16]byte, sections []rawSection) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf, bpx.WithVersion(version))
	w.SetType(bpx.TypePackage)
	w.SetTypeExt(typeExt)
	for _, s := range sections {
		sw, err := w.CreateSection(s.typ, bpx.SectionOptions{Compression: s.comp, Checksum: bpx.ChecksumWeak})
		if err != nil {
			t.Fatal(err)
		}
		sw.Write(s.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type rawSection struct {
	typ  uint8
	comp bpx.Compression
	data []byte
}

// draftPackage builds a version-0 draft container: 32-byte header with
// TypeExt {AssetCount, flags}, 16-byte section headers (flag 0x2 = zlib,
// data given already compressed), and the whole-file CRC-32.
func draftPackage(assetCount uint32, flags uint8, secs []draftSection) []byte {
	const hdr, sh = 32, 16
	off := uint64(hdr + sh*len(secs))
	var table, body []byte
	for _, s := range secs {
		table = binary.LittleEndian.AppendUint64(table, off)
		table = binary.LittleEndian.AppendUint32(table, uint32(len(s.data)))
		table = append(table, s.typ, s.flags, 0, 0)
		body = append(body, s.data...)
		off += uint64(len(s.data))
	}
	b := make([]byte, hdr, int(off))
	copy(b, "BPXP")
	binary.LittleEndian.PutUint64(b[8:], off-hdr)
	binary.LittleEndian.PutUint32(b[16:], uint32(len(secs)))
	binary.LittleEndian.PutUint32(b[20:], 0)
	binary.LittleEndian.PutUint32(b[24:], assetCount)
	b[28] = flags
	b = append(append(b, table...), body...)
	h := crc32.NewIEEE()
	h.Write(b[:4])
	h.Write(b[8:])
	binary.LittleEndian.PutUint32(b[4:], h.Sum32())
	return b
}

type draftSection struct {
	typ, flags uint8
	data       []byte
}

// appendToFiles appends a byte to every regular file under dir: files
// changed since an unpack, which another unpack must not overwrite.
func appendToFiles(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		_, err = f.Write([]byte{'!'})
		return errors.Join(err, f.Close())
	})
}
