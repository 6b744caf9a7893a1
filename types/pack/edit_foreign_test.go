package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// foreignSection is the stored form of a section of a type the package
// editor does not manage: its header (without the pointer) and bytes.
type foreignSection struct {
	hdr    bpx.SectionHeader
	stored []byte
}

// foreignSections returns the sections of p whose types are not those of a
// package, in table order.
func foreignSections(t testing.TB, p *Package) []foreignSection {
	t.Helper()
	var out []foreignSection
	for _, s := range p.Reader.Sections {
		switch s.Type {
		case SectionData, SectionObjectTable, SectionStrings, SectionMetadata, SectionDigests:
			continue
		}
		b, err := io.ReadAll(s.OpenRaw())
		if err != nil {
			t.Fatal(err)
		}
		h := s.SectionHeader
		h.Pointer = 0
		out = append(out, foreignSection{h, b})
	}
	return out
}

// withForeign appends to the package b a compressed, checksummed section
// of type 0x42 and a raw one of type 0x43, with bpx.Rewrite.
func withForeign(t testing.TB, b []byte) []byte {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = bpx.Rewrite(&out, rd, func(e *bpx.Editor) error {
		if err := e.Append(0x42, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat("game-specific index ", 500))
			return err
		}); err != nil {
			return err
		}
		return e.Append(0x43, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, func(w io.Writer) error {
			_, err := io.WriteString(w, "signature")
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// checkDataContiguous fails if a section of another type lies between two
// data sections (spec §14.1: the data sections are contiguous).
func checkDataContiguous(t testing.TB, p *Package) {
	t.Helper()
	first, last := -1, -1
	for i, s := range p.Reader.Sections {
		if s.Type == SectionData {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := first + 1; first >= 0 && i < last; i++ {
		if typ := p.Reader.Sections[i].Type; typ != SectionData {
			t.Errorf("section %d of type %#x lies between data sections %d and %d", i, typ, first, last)
		}
	}
}

// TestEditKeepsForeignSections: sections of other types than a package's
// own are untouched by every edit, so they are copied byte for byte, in
// their order (issue 24: a type-0x42 section vanished after bpx add).
func TestEditKeepsForeignSections(t *testing.T) {
	src := withForeign(t, pkgBytes(t, editTree(), WithSectionSize(4096)))
	want := foreignSections(t, openBytes(t, src))
	if len(want) != 2 {
		t.Fatalf("%d foreign sections in the source, want 2", len(want))
	}
	for _, c := range []struct {
		name string
		edit func(e *Editor) error
	}{
		{"add", func(e *Editor) error { return second(e.Create("added.txt")) }},
		{"replace", func(e *Editor) error {
			w, err := e.Create("dir1/file05.txt")
			if err == nil {
				_, err = io.WriteString(w, "replaced")
			}
			return err
		}},
		{"rm", func(e *Editor) error { return e.Remove("dir2") }},
		{"mv", func(e *Editor) error { return e.Rename("dir3", "moved") }},
		{"metadata", func(e *Editor) error { return e.SetMetadataValue(map[string]string{"k": "v"}) }},
		{"compact", func(e *Editor) error {
			e.Compact()
			return e.Remove("big.bin")
		}},
		{"recompress", func(e *Editor) error {
			e.Recompress()
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := edited(t, src, c.edit, WithSectionSize(4096))
			p := openBytes(t, out)
			got := foreignSections(t, p)
			if len(got) != len(want) {
				t.Fatalf("%d sections of other types after the edit, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].hdr != want[i].hdr || !bytes.Equal(got[i].stored, want[i].stored) {
					t.Errorf("section of type %#x changed: header %+v, %d stored bytes; want %+v, %d", want[i].hdr.Type, got[i].hdr, len(got[i].stored), want[i].hdr, len(want[i].stored))
				}
			}
			checkDataContiguous(t, p)
			if err := p.Verify(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestEditRefusesSecondTables: a second object table, strings or metadata
// section cannot be kept (the edit rewrites those, and a reader takes the
// first), so the editor refuses the package rather than drop it.
func TestEditRefusesSecondTables(t *testing.T) {
	base := pkgBytes(t, editTree(), WithSectionSize(4096))
	for _, typ := range []uint8{SectionObjectTable, SectionStrings, SectionMetadata} {
		t.Run(fmt.Sprintf("%#x", typ), func(t *testing.T) {
			rd, err := bpx.NewReader(bytes.NewReader(base), int64(len(base)))
			if err != nil {
				t.Fatal(err)
			}
			var src bytes.Buffer
			if typ == SectionMetadata { // the first metadata section
				err = bpx.Rewrite(&src, rd, func(e *bpx.Editor) error {
					return e.Append(SectionMetadata, bpx.SectionOptions{}, func(w io.Writer) error { return nil })
				})
				if err != nil {
					t.Fatal(err)
				}
				b := src.Bytes()
				if rd, err = bpx.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
					t.Fatal(err)
				}
				src = bytes.Buffer{}
			}
			err = bpx.Rewrite(&src, rd, func(e *bpx.Editor) error {
				return e.Append(typ, bpx.SectionOptions{}, func(w io.Writer) error { return nil })
			})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			e := NewEditor(&out, openBytes(t, src.Bytes()))
			err = e.Remove("big.bin")
			if err == nil {
				err = e.Close()
			}
			if !errors.Is(err, ErrNotEditable) || !errors.Is(err, bpx.ErrUnsupported) {
				t.Errorf("edit of a package with two sections of type %#x: %v, want ErrNotEditable and bpx.ErrUnsupported", typ, err)
			}
			if out.Len() != 0 {
				t.Errorf("a refused edit wrote %d bytes", out.Len())
			}
		})
	}
}
