package pack

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/gocorpus"
)

// The benchmarks compare against archive/zip on the same corpus, in the
// same run: $(go env GOROOT)/src read into memory.

var corpus struct {
	once  sync.Once
	names []string
	data  map[string][]byte
	total int64
	small string
}

func loadCorpus(b *testing.B) {
	corpus.once.Do(func() {
		src := gocorpus.SrcDir()
		corpus.data = map[string][]byte{}
		if src == "" {
			return // no corpus: the benchmarks skip below
		}
		fs.WalkDir(os.DirFS(src), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(filepath.Join(src, p))
			if err == nil {
				corpus.names = append(corpus.names, p)
				corpus.data[p] = data
				corpus.total += int64(len(data))
				if corpus.small == "" && len(data) > 1000 && len(data) < 4000 && len(corpus.names) > 5000 {
					corpus.small = p
				}
			}
			return err
		})
	})
	if len(corpus.names) == 0 {
		b.Skip("GOROOT/src not available")
	}
}

// writeCorpus adds every corpus file through create.
func writeCorpus(b *testing.B, create func(name string, size int64) (io.Writer, error)) {
	for _, n := range corpus.names {
		w, err := create(n, int64(len(corpus.data[n])))
		if err != nil {
			b.Fatal(err)
		}
		w.Write(corpus.data[n])
	}
}

func packCorpus(b *testing.B, opts ...WriterOption) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, opts...)
	writeCorpus(b, w.CreateSized)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func zipCorpus(b *testing.B) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	writeCorpus(b, func(name string, _ int64) (io.Writer, error) { return zw.Create(name) })
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

var benchPkgs struct {
	once           sync.Once
	xz, zlib, zips []byte
}

func benchPackages(b *testing.B) {
	loadCorpus(b)
	benchPkgs.once.Do(func() {
		benchPkgs.xz = packCorpus(b)
		benchPkgs.zlib = packCorpus(b, WithCompression(bpx.CompressZlib))
		benchPkgs.zips = zipCorpus(b)
	})
}

// BenchmarkOpenList: open a package and list every object's name and size;
// baseline: archive/zip on a zip of the same tree.
func BenchmarkOpenList(b *testing.B) {
	benchPackages(b)
	b.Run("bpx", func(b *testing.B) {
		for b.Loop() {
			p, err := NewReader(bytes.NewReader(benchPkgs.xz), int64(len(benchPkgs.xz)))
			if err != nil {
				b.Fatal(err)
			}
			var n uint64
			for _, o := range p.Objects() {
				n += o.Size + uint64(len(o.Name))
			}
		}
	})
	b.Run("zip", func(b *testing.B) {
		for b.Loop() {
			r, err := zip.NewReader(bytes.NewReader(benchPkgs.zips), int64(len(benchPkgs.zips)))
			if err != nil {
				b.Fatal(err)
			}
			var n uint64
			for _, f := range r.File {
				n += f.UncompressedSize64 + uint64(len(f.Name))
			}
		}
	})
}

// BenchmarkReadOneSmall: open a package and fs.ReadFile one small file.
func BenchmarkReadOneSmall(b *testing.B) {
	benchPackages(b)
	b.Run("bpx", func(b *testing.B) {
		for b.Loop() {
			p, err := NewReader(bytes.NewReader(benchPkgs.xz), int64(len(benchPkgs.xz)))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := fs.ReadFile(p, corpus.small); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("zip", func(b *testing.B) {
		for b.Loop() {
			r, err := zip.NewReader(bytes.NewReader(benchPkgs.zips), int64(len(benchPkgs.zips)))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := fs.ReadFile(r, corpus.small); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPack: write the corpus; baseline archive/zip (Deflate).
func BenchmarkPack(b *testing.B) {
	loadCorpus(b)
	for _, c := range []struct {
		name string
		opts []WriterOption
	}{{"xz", nil}, {"zlib", []WriterOption{WithCompression(bpx.CompressZlib)}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(corpus.total)
			for b.Loop() {
				b.ReportMetric(float64(len(packCorpus(b, c.opts...))), "bytes/pkg")
			}
		})
	}
	b.Run("zip", func(b *testing.B) {
		b.SetBytes(corpus.total)
		for b.Loop() {
			b.ReportMetric(float64(len(zipCorpus(b))), "bytes/pkg")
		}
	})
}

// BenchmarkReadAll: read every object (fs.ReadFile in tree order).
func BenchmarkReadAll(b *testing.B) {
	benchPackages(b)
	b.Run("bpx", func(b *testing.B) {
		b.SetBytes(corpus.total)
		for b.Loop() {
			p, _ := NewReader(bytes.NewReader(benchPkgs.xz), int64(len(benchPkgs.xz)))
			for _, n := range corpus.names {
				if _, err := p.ReadFile(n); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("zip", func(b *testing.B) {
		b.SetBytes(corpus.total)
		for b.Loop() {
			r, _ := zip.NewReader(bytes.NewReader(benchPkgs.zips), int64(len(benchPkgs.zips)))
			for _, f := range r.File {
				rc, _ := f.Open()
				io.Copy(io.Discard, rc)
				rc.Close()
			}
		}
	})
}

// benchOpeners open the corpus as an xz package, a zlib package and a zip.
var benchOpeners = []struct {
	name string
	open func() (fs.FS, error)
}{
	{"xz", func() (fs.FS, error) { return NewReader(bytes.NewReader(benchPkgs.xz), int64(len(benchPkgs.xz))) }},
	{"zlib", func() (fs.FS, error) { return NewReader(bytes.NewReader(benchPkgs.zlib), int64(len(benchPkgs.zlib))) }},
	{"zip", func() (fs.FS, error) {
		return zip.NewReader(bytes.NewReader(benchPkgs.zips), int64(len(benchPkgs.zips)))
	}},
}

// benchReadParallel runs read on a fresh fs.FS of each kind, counting size
// bytes per run.
func benchReadParallel(b *testing.B, size int64, read func(fs.FS) error) {
	for _, o := range benchOpeners {
		b.Run(o.name, func(b *testing.B) {
			b.SetBytes(size)
			loads, aheads := 0, 0
			for b.Loop() {
				fsys, err := o.open()
				if err != nil {
					b.Fatal(err)
				}
				if err := read(fsys); err != nil {
					b.Fatal(err)
				}
				if p, ok := fsys.(*Package); ok {
					p.Close() // waits for a read-ahead
					loads += p.cache.loads
					aheads += p.cache.aheads
				}
			}
			if loads > 0 {
				b.ReportMetric(float64(loads)/float64(b.N), "loads/op")
				b.ReportMetric(float64(aheads)/float64(b.N), "aheads/op")
			}
		})
	}
}

// BenchmarkReadAllParallel: read every file with fs.ReadFile from 2
// goroutines, which take the names in fs.WalkDir order, as a game loading
// its assets on two threads would; baseline: archive/zip reading a zip of
// the same tree the same way.
func BenchmarkReadAllParallel(b *testing.B) {
	benchPackages(b)
	benchReadParallel(b, corpus.total, func(fsys fs.FS) error {
		return readParallel(fsys, 2, func(names chan<- string) error {
			return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					names <- p
				}
				return err
			})
		})
	})
}

// BenchmarkReadRandomParallel: read 256 files picked at random (fixed
// seed) with fs.ReadFile from 2 goroutines, as a game loading assets on
// demand would; nearly every read decodes another section. Baseline:
// archive/zip on a zip of the same tree.
func BenchmarkReadRandomParallel(b *testing.B) {
	benchPackages(b)
	rng := rand.New(rand.NewPCG(17, 4))
	var sample []string
	var total int64
	for _, i := range rng.Perm(len(corpus.names))[:min(256, len(corpus.names))] {
		sample = append(sample, corpus.names[i])
		total += int64(len(corpus.data[corpus.names[i]]))
	}
	benchReadParallel(b, total, func(fsys fs.FS) error {
		return readParallel(fsys, 2, func(names chan<- string) error {
			for _, n := range sample {
				names <- n
			}
			return nil
		})
	})
}

// readParallel reads with fs.ReadFile, from n goroutines, the files of
// fsys that feed sends.
func readParallel(fsys fs.FS, n int, feed func(chan<- string) error) error {
	names := make(chan string, 64)
	errs := make(chan error, n)
	for range n {
		go func() {
			var err error
			for name := range names {
				if err == nil {
					_, err = fs.ReadFile(fsys, name)
				}
			}
			errs <- err
		}()
	}
	feedErr := feed(names)
	close(names)
	for range n {
		if err := <-errs; err != nil && feedErr == nil {
			feedErr = err
		}
	}
	return feedErr
}

// BenchmarkUnpack: unpack the corpus's package into a directory, without
// read-ahead (as Unpack does) and with it.
func BenchmarkUnpack(b *testing.B) {
	benchPackages(b)
	for _, c := range []struct {
		name string
		pkg  []byte
	}{{"xz", benchPkgs.xz}, {"zlib", benchPkgs.zlib}} {
		for _, ahead := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/ahead=%v", c.name, ahead), func(b *testing.B) {
				unpackReadAhead = ahead
				defer func() { unpackReadAhead = false }()
				b.SetBytes(corpus.total)
				dir := b.TempDir()
				for b.Loop() {
					p, err := NewReader(bytes.NewReader(c.pkg), int64(len(c.pkg)))
					if err != nil {
						b.Fatal(err)
					}
					if err := p.Unpack(dir, Overwrite()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkBuildIndex(b *testing.B) {
	benchPackages(b)
	p, err := NewReader(bytes.NewReader(benchPkgs.xz), int64(len(benchPkgs.xz)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		buildIndex(p.objects, 0)
	}
}
