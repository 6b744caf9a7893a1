package pack

import (
	"archive/zip"
	"image"
	_ "image/jpeg" // JPEG textures
	_ "image/png"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchmarkDecodeImages (issue 32, goal 1): a game loading the textures of
// one kart or track: every PNG and JPEG of the directory $BPX_GAME_SUB of
// the tree $BPX_GAME_DIR (for instance SuperTuxKart's data, fetched by
// bench/game-data.sh), opened through fs.FS and decoded with image.Decode
// from 4 goroutines; baseline: archive/zip over a zip (deflate, default
// level) of the same tree. Both read files on disk. Skipped without
// $BPX_GAME_DIR.
func BenchmarkDecodeImages(b *testing.B) {
	dir, sub := os.Getenv("BPX_GAME_DIR"), os.Getenv("BPX_GAME_SUB")
	if dir == "" || sub == "" {
		b.Skip("set BPX_GAME_DIR to a game's data tree and BPX_GAME_SUB to one of its directories (bench/game-data.sh does)")
	}
	tmp := b.TempDir()
	pkgPath, zipPath := filepath.Join(tmp, "game.bpx"), filepath.Join(tmp, "game.zip")
	var names []string
	var size int64
	err := fs.WalkDir(os.DirFS(dir), sub, func(p string, d fs.DirEntry, err error) error {
		ext := strings.ToLower(path.Ext(p))
		if err == nil && d.Type().IsRegular() && (ext == ".png" || ext == ".jpg") {
			info, _ := d.Info()
			names = append(names, p)
			size += info.Size()
		}
		return err
	})
	if err != nil || len(names) == 0 {
		b.Fatalf("no images under %s: %v", sub, err)
	}
	writeGamePackage(b, dir, pkgPath)
	writeGameZip(b, dir, zipPath)
	decode := func(b *testing.B, fsys fs.FS) {
		b.SetBytes(size)
		for b.Loop() {
			work := make(chan string)
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range work {
						f, err := fsys.Open(n)
						if err != nil {
							b.Error(err)
							continue
						}
						if _, _, err := image.Decode(f); err != nil {
							b.Errorf("%s: %v", n, err)
						}
						f.Close()
					}
				}()
			}
			for _, n := range names {
				work <- n
			}
			close(work)
			wg.Wait()
		}
	}
	b.Run("bpx", func(b *testing.B) {
		p, err := Open(pkgPath)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		decode(b, p)
	})
	b.Run("zip", func(b *testing.B) {
		z, err := zip.OpenReader(zipPath)
		if err != nil {
			b.Fatal(err)
		}
		defer z.Close()
		decode(b, z)
	})
}

func writeGamePackage(b *testing.B, dir, out string) {
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(f)
	if err := w.AddFS(noDangling{os.DirFS(dir)}); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func writeGameZip(b *testing.B, dir, out string) {
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	err = WalkTree(os.DirFS(dir), ".", func(string) {}, func(name string, info fs.FileInfo) error {
		if info.IsDir() {
			return nil
		}
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		r, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer r.Close()
		_, err = io.Copy(w, r)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
}

// noDangling is a tree without its dangling symbolic links (Debian's
// game data links fonts to another package), as bpx pack --skip-dangling
// packs it.
type noDangling struct{ fs.FS }

func (d noDangling) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(d.FS, name)
	kept := ents[:0]
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink != 0 {
			if _, serr := fs.Stat(d.FS, path.Join(name, e.Name())); serr != nil {
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept, err
}

func (d noDangling) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.FS, name) }
