package bpx

import (
	"errors"
	"fmt"
	"io"
)

// CopySection adds a section holding the stored bytes of s, a section of an
// opened container, without decompressing or recompressing them: the new
// section's CSize, USize, Checksum, Type and Flags are those of s (a raw
// section's CSize is set to its USize, the bytes a reader takes). The bytes
// are read from s's container during Close, so that container must stay
// open until Close returns. Like CreateSection, it ends the current section.
//
// A section of a version-0 draft container, whose header has no USize, is
// decompressed once to measure it; its bytes are still copied unchanged.
// CopySection fails with ErrFormat if the section's data lies outside its
// file.
func (w *Writer) CopySection(s *Section) error {
	if w.closed {
		return errWriterClosed
	}
	raw := s.OpenRaw()
	if want := int64(s.StoredSize()); raw.Size() != want {
		return &FormatError{Offset: int64(s.Pointer), Section: s.Index,
			What: fmt.Sprintf("stored data (%d bytes) extends beyond the end of the file", want)}
	}
	hdr := s.SectionHeader
	if !hdr.Compressed() {
		hdr.CSize = hdr.USize
	} else if !s.usizeKnown {
		n, err := decodedSize(s)
		if err != nil {
			return err
		}
		hdr.USize = n
	}
	e, err := w.newEntry(hdr.Type)
	if err != nil {
		return err
	}
	hdr.Pointer = 0
	e.hdr, e.src = hdr, raw
	return nil
}

// decodedSize decompresses s to count its bytes, up to 4 GiB - 1.
func decodedSize(s *Section) (uint32, error) {
	rc, err := s.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(rc, 1<<32))
	if err != nil {
		return 0, err
	}
	if n > 1<<32-1 {
		return 0, fmt.Errorf("%w: section %d decompresses to more than 4 GiB - 1 bytes", ErrTooLarge, s.Index)
	}
	return uint32(n), nil
}

// An Editor plans the sections of a container that Rewrite writes. The plan
// starts as the source's sections in table order, each copied byte for byte;
// positions are indexes into the current plan, so they shift as sections
// are removed or inserted, like slice indexes.
//
// The Editor is only valid inside the edit function given to Rewrite; the
// content functions it records run afterwards, in table order.
type Editor struct {
	items   []editItem
	typ     *uint8
	typeExt *[16]byte
}

// editItem is one planned section: a copy of orig when content is nil,
// otherwise new content.
type editItem struct {
	orig    *Section
	typ     uint8
	o       SectionOptions
	content func(io.Writer) error
}

// Len returns the number of sections planned.
func (e *Editor) Len() int { return len(e.items) }

// Source returns the source section planned at position i, also after it
// was replaced (so the new content can be derived from it), or nil for a
// section added by Insert or Append or for i out of range.
func (e *Editor) Source(i int) *Section {
	if i < 0 || i >= len(e.items) {
		return nil
	}
	return e.items[i].orig
}

func (e *Editor) checkIndex(i, n int) error {
	if i < 0 || i >= n {
		return fmt.Errorf("bpx: section position %d out of range [0, %d)", i, n)
	}
	return nil
}

var errNilContent = errors.New("bpx: nil section content function")

// Remove drops the section planned at position i.
func (e *Editor) Remove(i int) error {
	if err := e.checkIndex(i, len(e.items)); err != nil {
		return err
	}
	e.items = append(e.items[:i], e.items[i+1:]...)
	return nil
}

// Replace gives position i new content of type typ, stored as o asks.
// content is called during Rewrite, in table order, with the section's
// writer; it may read Source(i).
func (e *Editor) Replace(i int, typ uint8, o SectionOptions, content func(io.Writer) error) error {
	if err := e.checkIndex(i, len(e.items)); err != nil {
		return err
	}
	if content == nil {
		return errNilContent
	}
	e.items[i] = editItem{orig: e.items[i].orig, typ: typ, o: o, content: content}
	return nil
}

// Insert adds a new section at position i (0 ≤ i ≤ Len()), shifting the
// following ones; content is called as for Replace.
func (e *Editor) Insert(i int, typ uint8, o SectionOptions, content func(io.Writer) error) error {
	if err := e.checkIndex(i, len(e.items)+1); err != nil {
		return err
	}
	if content == nil {
		return errNilContent
	}
	e.items = append(e.items, editItem{})
	copy(e.items[i+1:], e.items[i:])
	e.items[i] = editItem{typ: typ, o: o, content: content}
	return nil
}

// Append adds a new section at the end; content is called as for Replace.
func (e *Editor) Append(typ uint8, o SectionOptions, content func(io.Writer) error) error {
	return e.Insert(len(e.items), typ, o, content)
}

// SetType sets the rewritten container's Type byte.
func (e *Editor) SetType(t uint8) { e.typ = &t }

// SetTypeExt sets the rewritten container's TypeExt.
func (e *Editor) SetTypeExt(ext [16]byte) { e.typeExt = &ext }

// Rewrite writes to dst a container derived from src: edit (if not nil)
// removes, replaces, inserts or appends sections through the Editor, and
// every section it leaves alone is copied byte for byte with CopySection,
// without recompression. The main header's Type and TypeExt come from src
// unless the Editor sets them; its Version comes from src (a version other
// than 1 or 2 becomes CurrentVersion) unless opts set it. src must stay readable until Rewrite returns.
//
// To modify a file in place, combine it with SaveFile, which replaces the
// file only once the new container is completely written.
func Rewrite(dst io.Writer, src *Reader, edit func(e *Editor) error, opts ...WriterOption) error {
	ed := &Editor{items: make([]editItem, len(src.Sections))}
	for i, s := range src.Sections {
		ed.items[i] = editItem{orig: s}
	}
	if edit != nil {
		if err := edit(ed); err != nil {
			return err
		}
	}
	version := src.Header.Version
	if version != Version1 && version != Version2 && version != VersionZstd {
		version = CurrentVersion // VersionZstd again if a zstd section is kept
	}
	w := NewWriter(dst, append([]WriterOption{WithVersion(version)}, opts...)...)
	w.SetType(src.Header.Type)
	w.SetTypeExt(src.Header.TypeExt)
	if ed.typ != nil {
		w.SetType(*ed.typ)
	}
	if ed.typeExt != nil {
		w.SetTypeExt(*ed.typeExt)
	}
	for i, it := range ed.items {
		if err := rewriteItem(w, it); err != nil {
			w.fail(err) // Close then only cleans up
			w.Close()
			return fmt.Errorf("bpx: rewrite: section %d: %w", i, err)
		}
	}
	return w.Close()
}

func rewriteItem(w *Writer, it editItem) error {
	if it.content == nil {
		return w.CopySection(it.orig)
	}
	sw, err := w.CreateSection(it.typ, it.o)
	if err != nil {
		return err
	}
	return it.content(sw)
}
