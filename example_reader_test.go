package bpx_test

import (
	"bytes"
	"encoding/binary"
	"errors"
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

// ExampleSection_OpenVerified streams a section to a consumer that may
// stop early, such as an image decoder that stops at its end marker: it
// never sees a byte the section's checksum did not cover. Here the
// stored checksum is wrong, so no byte comes out at all, where Open's
// reader would hand out the data and report the mismatch only at EOF.
func ExampleSection_OpenVerified() {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	sw, _ := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumWeak})
	io.WriteString(sw, "GIF89a... the rest of an image")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b := file.Bytes()
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	rc, err := r.Sections[0].OpenVerified()
	if err != nil {
		log.Fatal(err)
	}
	head := make([]byte, 6)
	_, err = io.ReadFull(rc, head)
	rc.Close()
	fmt.Printf("%q %v\n", head, err)

	// The same file with a wrong checksum in the section's header.
	h := r.Sections[0].SectionHeader
	h.Checksum++
	hb := h.Marshal()
	copy(b[bpx.MainHeaderSize:], hb[:])
	binary.LittleEndian.PutUint32(b[4:], bpx.HeaderChecksum(b, b[bpx.MainHeaderSize:bpx.MainHeaderSize+bpx.SectionHeaderSize]))
	r, err = bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	_, err = r.Sections[0].OpenVerified()
	fmt.Println(errors.Is(err, bpx.ErrChecksum))
	// Output:
	// "GIF89a" <nil>
	// true
}

// ExampleSection_Blocks writes a large xz section in blocks and reads a
// few bytes near its end by decoding only the block that holds them.
func ExampleSection_Blocks() {
	var data bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&data, "record %05d\n", i) // 13 bytes each
	}
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	opts := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, BlockSize: 64 << 10}
	if err := w.WriteSection(1, opts, data.Bytes()); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	s := r.Sections[0]
	blocks, err := s.Blocks()
	if err != nil {
		log.Fatal(err)
	}
	want := int64(19999 * 13) // the last record
	for _, b := range blocks {
		if want >= b.Offset && want < b.Offset+b.Size {
			d, err := s.AppendBlock(nil, b)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%d blocks; block %d holds %q", len(blocks), b.Index, d[want-b.Offset:want-b.Offset+13])
		}
	}
	// Output: 4 blocks; block 3 holds "record 19999\n"
}
