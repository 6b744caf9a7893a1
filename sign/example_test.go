package sign_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// Example signs a small container with a new key and opens it with a
// KeyRing of the public key: only bytes that match the signature are
// read.
func Example() {
	// A container with one section.
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	if err := w.WriteSection(1, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, []byte("hello, player")); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// The modder signs it (GenerateKey(nil, ...) draws a random key;
	// bpx keygen writes one to a file, as ssh-keygen does).
	key, err := sign.GenerateKey(nil, "modder@example.org")
	if err != nil {
		log.Fatal(err)
	}
	var signed bytes.Buffer
	if err := sign.Sign(&signed, bytes.NewReader(file.Bytes()), int64(file.Len()), key); err != nil {
		log.Fatal(err)
	}

	// The player trusts the modder's public key (a line of a trusted-keys
	// file) and opens the signed file.
	trusted, err := sign.ParseKeyRing([]byte(key.Public().String() + "\n"))
	if err != nil {
		log.Fatal(err)
	}
	v, err := sign.Open(bytes.NewReader(signed.Bytes()), int64(signed.Len()), trusted)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed by", v.Signers()[0].Comment)
	rd, err := bpx.NewReader(v, v.Size())
	if err != nil {
		log.Fatal(err)
	}
	data, err := rd.Sections[0].Data()
	fmt.Printf("%q %v\n", data, err)

	// The same file with a changed byte is refused.
	b := bytes.Clone(signed.Bytes())
	b[3] = 'X' // the type byte of the main header
	_, err = sign.Open(bytes.NewReader(b), int64(len(b)), trusted)
	fmt.Println(errors.Is(err, bpx.ErrSignature))
	// Output:
	// signed by modder@example.org
	// "hello, player" <nil>
	// true
}

// ExampleInspect tells who signed a file, trusting no key.
func ExampleInspect() {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	w.WriteSection(1, bpx.SectionOptions{}, []byte("data"))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	key, err := sign.GenerateKey(nil, "modder@example.org")
	if err != nil {
		log.Fatal(err)
	}
	var signed bytes.Buffer
	if err := sign.Sign(&signed, bytes.NewReader(file.Bytes()), int64(file.Len()), key); err != nil {
		log.Fatal(err)
	}
	st, err := sign.Inspect(bytes.NewReader(signed.Bytes()), int64(signed.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range st.Signatures {
		fmt.Println(s.Key.ID() == key.Public().ID(), s.Valid)
	}
	fmt.Println("signed:", st.Signed, "matches:", st.Matches)
	// Output:
	// true true
	// signed: true matches: true
}

// ExampleKeyRing_Require: the studio signs release 8 of its package
// "base"; a launcher that installed release 8 requires the name and at
// least that version, so neither a mod signed by a trusted key nor the
// studio's own release 7 passes for it.
func ExampleKeyRing_Require() {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	w.WriteSection(1, bpx.SectionOptions{}, []byte("assets"))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	studio, err := sign.GenerateKey(nil, "studio")
	if err != nil {
		log.Fatal(err)
	}
	release := func(st sign.Statement) []byte {
		var out bytes.Buffer
		if err := st.Sign(&out, bytes.NewReader(file.Bytes()), int64(file.Len()), studio); err != nil {
			log.Fatal(err)
		}
		return out.Bytes()
	}
	// An allowed_signers line: the studio's key signs packages named base
	// or base-something, nothing else.
	ring, err := sign.ParseKeyRing([]byte("base,base-* " + studio.Public().String() + "\n"))
	if err != nil {
		log.Fatal(err)
	}
	need := ring.Require(sign.Requirement{Name: "base", MinVersion: 8})
	for _, st := range []sign.Statement{{Name: "base", Version: 8}, {Name: "base", Version: 7}, {Name: "base-hd", Version: 9}} {
		b := release(st)
		v, err := sign.Open(bytes.NewReader(b), int64(len(b)), need)
		if err != nil {
			fmt.Println(st.Version, errors.Is(err, sign.ErrRequirement))
			continue
		}
		fmt.Println(st.Version, v.Statement())
	}
	// Output:
	// 8 "base" version 8
	// 7 true
	// 9 true
}
