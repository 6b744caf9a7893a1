package overlay_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/types/pack"
)

// benchFiles is the number of corpus files in the base package.
const benchFiles = 3000

// benchStack is a base package, two mods and the package merging them,
// built from the first benchFiles files of $(go env GOROOT)/src.
type benchStack struct {
	base, mod1, mod2, merged []byte
	names                    []string // every file the stack shows
	total                    int64    // their bytes
}

var benchStacks sync.Map // bpx.Compression -> *benchStack

func loadTree(b *testing.B) fstest.MapFS {
	src := gocorpus.SrcDir()
	if src == "" {
		b.Skip("GOROOT/src not available")
	}
	tree := fstest.MapFS{}
	fs.WalkDir(os.DirFS(src), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || len(tree) == benchFiles {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(src + "/" + name)
			if err != nil {
				return err
			}
			tree[name] = &fstest.MapFile{Data: data}
		}
		return nil
	})
	if len(tree) < benchFiles {
		b.Skipf("GOROOT/src has only %d files", len(tree))
	}
	return tree
}

// mod derives a mod from the names of the tree: it replaces every
// replace-th file, adds a file next to every add-th one plus extra files
// in a new directory, and removes every remove-th file and a small
// directory at or after the file at dirAt.
func mod(tree fstest.MapFS, tag string, replace, add, remove, dirAt int) (files fstest.MapFS, removed []string) {
	files = fstest.MapFS{}
	names := slices.Sorted(maps.Keys(tree))
	for i, n := range names {
		switch {
		case i%replace == 1:
			files[n] = &fstest.MapFile{Data: append(slices.Clip(tree[n].Data), "// "+tag+"\n"...)}
		case i%add == 2:
			files[n+"."+tag] = &fstest.MapFile{Data: []byte("added by " + tag + "\n")}
		case i%remove == 3:
			removed = append(removed, n)
		}
	}
	for i := range 20 {
		files[fmt.Sprintf("%s/new%02d.txt", tag, i)] = &fstest.MapFile{Data: bytes.Repeat([]byte(tag), 500)}
	}
	// Remove a small directory, so that the stack and the merged package
	// load about the same sections.
	count := map[string]int{}
	for _, n := range names {
		count[path.Dir(n)]++
	}
	for _, n := range names[dirAt:] {
		if d := path.Dir(n); d != "." && count[d] <= 8 {
			removed = append(removed, d)
			break
		}
	}
	return files, removed
}

// apply layers files over tree after removing removed from it.
func apply(tree, files fstest.MapFS, removed []string) {
	for _, r := range removed {
		for n := range tree {
			if n == r || strings.HasPrefix(n, r+"/") {
				delete(tree, n)
			}
		}
	}
	maps.Copy(tree, files)
}

func packBytes(b *testing.B, files fstest.MapFS, c bpx.Compression, removed []string) []byte {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(c))
	if err := w.AddFS(files); err != nil {
		b.Fatal(err)
	}
	if err := w.Remove(removed...); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func getStack(b *testing.B, c bpx.Compression) *benchStack {
	if s, ok := benchStacks.Load(c); ok {
		return s.(*benchStack)
	}
	tree := loadTree(b)
	s := &benchStack{base: packBytes(b, tree, c, nil)}
	// The mods replace 5% and 2% of the files: the stack decodes the
	// replaced bytes twice (in the base's sections and the mod's), which
	// no layering avoids, so heavier mods raise the xz ratio by about the
	// share of bytes they replace.
	m1, r1 := mod(tree, "mod1", 20, 50, 97, len(tree)/3)
	m2, r2 := mod(tree, "mod2", 50, 70, 89, 2*len(tree)/3)
	s.mod1, s.mod2 = packBytes(b, m1, c, r1), packBytes(b, m2, c, r2)
	merged := maps.Clone(tree)
	apply(merged, m1, r1)
	apply(merged, m2, r2)
	s.merged = packBytes(b, merged, c, nil)
	s.names = slices.Sorted(maps.Keys(merged))
	for _, f := range merged {
		s.total += int64(len(f.Data))
	}
	// The stack must show exactly the merged package.
	o := s.open(b)
	var shown []string
	err := fs.WalkDir(o, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			shown = append(shown, name)
			if got, err := o.ReadFile(name); err != nil || !bytes.Equal(got, merged[name].Data) {
				b.Fatalf("%s differs through the stack: %v", name, err)
			}
		}
		return err
	})
	if err != nil || !slices.Equal(slices.Sorted(slices.Values(shown)), s.names) {
		b.Fatalf("the stack shows %d files, the merged package %d (%v)", len(shown), len(s.names), err)
	}
	s.names = shown // in tree order, as a game would read them
	benchStacks.Store(c, s)
	return s
}

func openPack(b *testing.B, data []byte) *pack.Package {
	p, err := pack.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func (s *benchStack) open(b *testing.B) *overlay.FS {
	o, err := overlay.New(openPack(b, s.base), openPack(b, s.mod1), openPack(b, s.mod2))
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkReadStack opens the three packages of a stack and reads every
// name it shows with fs.ReadFile ("stack3"); the baseline ("merged") opens
// one package holding what the stack shows and reads the same names. For
// xz packages and for raw ones, where reading costs little besides the
// lookups.
func BenchmarkReadStack(b *testing.B) {
	for _, c := range []struct {
		name string
		c    bpx.Compression
	}{{"xz", bpx.CompressXZ}, {"none", bpx.CompressNone}} {
		b.Run(c.name, func(b *testing.B) {
			s := getStack(b, c.c)
			b.Run("stack3", func(b *testing.B) {
				b.SetBytes(s.total)
				for b.Loop() {
					o := s.open(b)
					for _, n := range s.names {
						if _, err := fs.ReadFile(o, n); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			b.Run("merged", func(b *testing.B) {
				b.SetBytes(s.total)
				for b.Loop() {
					p := openPack(b, s.merged)
					for _, n := range s.names {
						if _, err := fs.ReadFile(p, n); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}
