package pack

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// Issue 42, item 10 and goal 7: an unpack cut off (killed, or failed on
// one file when the package changed on the server) left files whole or
// begun, which running it again refused ("file exists"). Now a file that
// holds the object's first bytes, or all of them, is completed; a file
// with other bytes, a longer one, or a link, is still refused.
func TestUnpackAgain(t *testing.T) {
	tree := fstest.MapFS{}
	for _, n := range []string{"a.bin", "d/b.bin", "d/c.txt", "e.txt"} {
		b := make([]byte, 100_000+len(n)*1000)
		for j := range b {
			b[j] = byte(j*13 + len(n))
		}
		tree[n] = &fstest.MapFile{Data: b}
	}
	p := openBytes(t, pkgBytes(t, tree))
	for _, c := range []struct {
		name  string
		mess  func(dir string) error // what the first unpack left
		fails bool
	}{
		{"whole files", func(string) error { return nil }, false},
		{"one cut in half, one missing, one empty", func(dir string) error {
			if err := os.Truncate(filepath.Join(dir, "d/b.bin"), 50_000); err != nil {
				return err
			}
			if err := os.Truncate(filepath.Join(dir, "e.txt"), 0); err != nil {
				return err
			}
			return os.Remove(filepath.Join(dir, "a.bin"))
		}, false},
		{"another file's bytes", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "d/c.txt"), []byte("the player's own notes"), 0o644)
		}, true},
		{"longer", func(dir string) error {
			f, err := os.OpenFile(filepath.Join(dir, "a.bin"), os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write([]byte("x"))
				f.Close()
			}
			return err
		}, true},
		{"a link", func(dir string) error {
			name := filepath.Join(dir, "e.txt")
			os.Remove(name)
			return os.Symlink(filepath.Join(dir, "a.bin"), name)
		}, true},
	} {
		dir := t.TempDir()
		if err := p.Unpack(dir); err != nil {
			t.Fatal(err)
		}
		if err := c.mess(dir); err != nil {
			t.Fatal(err)
		}
		err := p.Unpack(dir)
		if c.fails {
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("%s: %v, want an error matching fs.ErrExist", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: running it again: %v", c.name, err)
		}
		for name, f := range tree {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil || !bytes.Equal(b, f.Data) {
				t.Fatalf("%s: %s: %d bytes, %v", c.name, name, len(b), err)
			}
		}
	}
}
