package overlay_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sign"
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

// ExamplePolicy loads a game's own base package, which it ships unsigned,
// and a mod that must be signed by a key the game trusts.
func ExamplePolicy() {
	modder, err := sign.GenerateKey(rand.Reader, "modder@example.com")
	if err != nil {
		log.Fatal(err)
	}
	trusted := sign.NewKeyRing(modder.Public())

	base := build([]string{"config.txt", "difficulty=normal", "levels/1.map", "level one"})

	// The modder signs the mod as it is written.
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithSigningKey(modder))
	f, err := w.Create("config.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprint(f, "difficulty=hard")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// The game opens it with its trusted keys: every byte read is checked.
	mod, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), pack.WithTrustedKeys(trusted))
	if err != nil {
		log.Fatal(err)
	}

	game, err := overlay.Policy{Unsigned: 1}.New(base, mod)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := fs.ReadFile(game, "config.txt")
	fmt.Printf("%s, mod signed by %s\n", b, game.Signers(1)[0].Comment)

	// An unsigned mod is refused.
	_, err = overlay.Policy{Unsigned: 1}.New(base, build([]string{"config.txt", "difficulty=easy"}))
	fmt.Println(errors.Is(err, bpx.ErrSignature))
	// Output:
	// difficulty=hard, mod signed by modder@example.com
	// true
}
