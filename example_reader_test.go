package bpx_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"github.com/gobpx/bpx"
)

// ExampleNewReader opens a container held in memory (it could come from an
// embedded file) and reads its sections lazily.
func ExampleNewReader() {
	// Make a small container to read.
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	w.SetType('Z')
	for _, text := range []string{"first section", "second section"} {
		sw, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: bpx.ChecksumCRC32})
		if err != nil {
			log.Fatal(err)
		}
		io.WriteString(sw, text)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// Read it: NewReader reads only the header and the section table.
	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("type %c, version %d, %d sections\n", r.Header.Type, r.Header.Version, len(r.Sections))
	for _, s := range r.Sections {
		data, err := s.Data() // decompressed and verified
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("section %d: %q\n", s.Index, data)
	}
	// Output:
	// type Z, version 2, 2 sections
	// section 0: "first section"
	// section 1: "second section"
}

// ExampleSection_Open streams one section; errors (size, checksum) surface
// at EOF, so io.ReadAll and io.Copy report them.
func ExampleSection_Open() {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	sw, _ := w.CreateSection(bpx.SectionTypeStrings, bpx.SectionOptions{Checksum: bpx.ChecksumWeak})
	io.WriteString(sw, "hello\x00world\x00")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	rc, err := r.FindSection(bpx.SectionTypeStrings).Open()
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	fmt.Println(n, err)
	// Output: 12 <nil>
}
