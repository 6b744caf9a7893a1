package bpx_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/gobpx/bpx"
)

func ExampleNewWriter() {
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('Z')

	// A small section: below the threshold it is stored raw.
	s, err := w.CreateSection(1, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32})
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(s, "hello, world")

	// A large one, xz-compressed like the reference SDK does it.
	s, err = w.CreateSection(2, bpx.SectionOptions{
		Compression: bpx.CompressXZ,
		Checksum:    bpx.ChecksumCRC32,
		Threshold:   bpx.DefaultThreshold,
	})
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(s, strings.Repeat("moddable assets ", 10000))

	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, sec := range r.Sections {
		data, err := sec.Data()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("section %d: type %d, xz %v, %d bytes, starts %q\n",
			sec.Index, sec.Type, sec.Flags&bpx.FlagXZ != 0, len(data), data[:12])
	}
	// Output:
	// section 0: type 1, xz false, 12 bytes, starts "hello, world"
	// section 1: type 2, xz true, 160000 bytes, starts "moddable ass"
}

func ExampleRewrite() {
	// A container with two sections.
	var orig bytes.Buffer
	w := bpx.NewWriter(&orig)
	w.SetType('P')
	for i, text := range []string{"texture data", "old script"} {
		s, _ := w.CreateSection(uint8(i+1), bpx.SectionOptions{Checksum: bpx.ChecksumCRC32})
		io.WriteString(s, text)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	src, err := bpx.NewReader(bytes.NewReader(orig.Bytes()), int64(orig.Len()))
	if err != nil {
		log.Fatal(err)
	}

	// A mod replaces the script and adds a section; the texture is copied
	// byte for byte. To modify a file in place, run this inside SaveFile.
	var modded bytes.Buffer
	err = bpx.Rewrite(&modded, src, func(e *bpx.Editor) error {
		err := e.Replace(1, 2, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, func(w io.Writer) error {
			_, err := io.WriteString(w, "new script")
			return err
		})
		if err != nil {
			return err
		}
		return e.Append(3, bpx.SectionOptions{}, func(w io.Writer) error {
			_, err := io.WriteString(w, "extra")
			return err
		})
	})
	if err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(modded.Bytes()), int64(modded.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, sec := range r.Sections {
		data, _ := sec.Data()
		fmt.Printf("%d: %s\n", sec.Type, data)
	}
	// Output:
	// 1: texture data
	// 2: new script
	// 3: extra
}
