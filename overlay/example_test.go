package overlay_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"

	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/types/pack"
)

// build writes a package holding files (name, content pairs) that
// removes the names given, and opens it.
func build(files []string, remove ...string) *pack.Package {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprint(f, files[i+1])
	}
	if err := w.Remove(remove...); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	return p
}

// ExampleNew layers a mod package over a base package: the mod replaces
// a file, adds one and removes a directory of the base.
func ExampleNew() {
	base := build([]string{
		"config.txt", "difficulty=normal",
		"levels/1.map", "level one",
		"music/theme.ogg", "base theme",
		"music/credits.ogg", "base credits",
	})
	mod := build([]string{
		"config.txt", "difficulty=hard",
		"levels/2.map", "level two",
	}, "music")
	game, err := overlay.New(base, mod)
	if err != nil {
		log.Fatal(err)
	}
	fs.WalkDir(game, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, err := game.ReadFile(name)
			if err != nil {
				return err
			}
			fmt.Printf("%s: %s\n", name, b)
		}
		return nil
	})
	// Output:
	// config.txt: difficulty=hard
	// levels/1.map: level one
	// levels/2.map: level two
}
