package pack_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// ExampleWithSigningKey signs a package as it is written, and opens it
// with the key trusted: every byte read from it is checked against what
// its author signed. A reader trusting another key refuses it.
func ExampleWithSigningKey() {
	key, err := sign.GenerateKey(nil, "modder@example.org") // or sign.ParsePrivateKey of ~/.ssh/id_ed25519
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithSigningKey(key))
	if err := w.AddFS(fstest.MapFS{"scripts/main.lua": {Data: []byte("print('hi')\n")}}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// The player's trusted keys: sign.LoadKeyRing reads them from a file.
	trusted := sign.NewKeyRing(key.Public())
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), pack.WithTrustedKeys(trusted))
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range p.Signers() {
		fmt.Println("signed by", k.Comment)
	}
	script, err := fs.ReadFile(p, "scripts/main.lua")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("main.lua: %s", script)

	stranger, _ := sign.GenerateKey(nil, "stranger")
	_, err = pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), pack.WithTrustedKeys(sign.NewKeyRing(stranger.Public())))
	fmt.Println("trusting another key:", errors.Is(err, sign.ErrUntrusted), errors.Is(err, bpx.ErrSignature))
	// Output:
	// signed by modder@example.org
	// main.lua: print('hi')
	// trusting another key: true true
}
