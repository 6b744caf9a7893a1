package bpx_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// rawOf returns the stored bytes of s.
func rawOf(t *testing.T, s *bpx.Section) []byte {
	t.Helper()
	b, err := io.ReadAll(s.OpenRaw())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameSection reports whether a and b have the same stored bytes and header
// fields (apart from Pointer).
func sameSection(t *testing.T, a, b *bpx.Section) bool {
	t.Helper()
	ha, hb := a.SectionHeader, b.SectionHeader
	ha.Pointer, hb.Pointer = 0, 0
	return ha == hb && bytes.Equal(rawOf(t, a), rawOf(t, b))
}

func rewriteSource(t *testing.T) (*bpx.Reader, []testSection) {
	secs := []testSection{
		{typ: 1, o: bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}, data: textData(20000, 1)},
		{typ: 2, o: bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: bpx.ChecksumWeak}, data: textData(30000, 2)},
		{typ: 3, o: bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, data: []byte("raw")},
		{typ: 4, o: bpx.SectionOptions{Checksum: bpx.ChecksumWeak}},
	}
	return openBytes(t, writeTypedContainer(t, 'P', [16]byte{7}, secs)), secs
}

func TestRewriteWithoutEditsIsIdentical(t *testing.T) {
	src, _ := rewriteSource(t)
	var out bytes.Buffer
	if err := bpx.Rewrite(&out, src, nil); err != nil {
		t.Fatal(err)
	}
	got := openBytes(t, out.Bytes())
	if got.Header != src.Header {
		t.Errorf("header %+v, want %+v", got.Header, src.Header)
	}
	for i := range src.Sections {
		if !sameSection(t, got.Sections[i], src.Sections[i]) {
			t.Errorf("section %d changed", i)
		}
	}
}

func TestRewriteEdits(t *testing.T) {
	src, secs := rewriteSource(t)
	newData := textData(50000, 99)
	var out bytes.Buffer
	err := bpx.Rewrite(&out, src, func(e *bpx.Editor) error {
		if e.Len() != 4 {
			t.Errorf("Len = %d, want 4", e.Len())
		}
		if err := e.Remove(2); err != nil { // drop "raw"
			return err
		}
		// Replace section 1 (zlib) with its content upper-cased, as xz.
		old := e.Source(1)
		if err := e.Replace(1, 9, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}, func(w io.Writer) error {
			d, err := old.Data()
			if err != nil {
				return err
			}
			_, err = w.Write(bytes.ToUpper(d))
			return err
		}); err != nil {
			return err
		}
		if err := e.Insert(0, 7, bpx.SectionOptions{Compression: bpx.CompressZlib}, func(w io.Writer) error {
			_, err := w.Write(newData)
			return err
		}); err != nil {
			return err
		}
		if e.Source(0) != nil {
			t.Error("Source of an inserted section is not nil")
		}
		e.SetType('Q')
		return e.Append(8, bpx.SectionOptions{}, func(w io.Writer) error {
			_, err := io.WriteString(w, "appended")
			return err
		})
	}, bpx.WithConcurrency(2))
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, out.Bytes())
	got := openBytes(t, out.Bytes())
	if got.Header.Type != 'Q' || got.Header.TypeExt != src.Header.TypeExt {
		t.Errorf("header %+v", got.Header)
	}
	// Plan: inserted, src 0 (kept), src 1 (replaced), src 3 (kept), appended.
	if len(got.Sections) != 5 {
		t.Fatalf("%d sections, want 5", len(got.Sections))
	}
	wantData := [][]byte{newData, secs[0].data, bytes.ToUpper(secs[1].data), nil, []byte("appended")}
	wantTypes := []uint8{7, 1, 9, 4, 8}
	for i, s := range got.Sections {
		d, err := s.Data()
		if err != nil || !bytes.Equal(d, wantData[i]) || s.Type != wantTypes[i] {
			t.Errorf("section %d: type %d, %v, equal %v", i, s.Type, err, bytes.Equal(d, wantData[i]))
		}
	}
	if !sameSection(t, got.Sections[1], src.Sections[0]) || !sameSection(t, got.Sections[3], src.Sections[3]) {
		t.Error("untouched sections are not byte-identical")
	}
	if got.Sections[2].Flags&bpx.FlagXZ == 0 {
		t.Errorf("replaced section flags %#x, want xz", got.Sections[2].Flags)
	}
}

func TestRewriteFailures(t *testing.T) {
	src, _ := rewriteSource(t)
	boom := errors.New("boom")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(e *bpx.Editor) error
		want string
	}{
		{"edit fails", func(e *bpx.Editor) error { return boom }, "boom"},
		{"content fails", func(e *bpx.Editor) error {
			return e.Replace(0, 1, bpx.SectionOptions{}, func(w io.Writer) error {
				w.Write(make([]byte, 5000)) // spooled to dir
				return boom
			})
		}, "boom"},
		{"bad position", func(e *bpx.Editor) error { return e.Remove(4) }, "out of range"},
		{"negative position", func(e *bpx.Editor) error {
			return e.Insert(-1, 1, bpx.SectionOptions{}, func(io.Writer) error { return nil })
		}, "out of range"},
		{"nil content", func(e *bpx.Editor) error { return e.Append(1, bpx.SectionOptions{}, nil) }, "nil"},
	} {
		var out bytes.Buffer
		err := bpx.Rewrite(&out, src, tc.edit, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(100))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written despite the failure", tc.name, out.Len())
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("%s: temporary files left: %v", tc.name, left)
		}
	}
}

func TestCopySectionOutsideFileFails(t *testing.T) {
	b := writeContainer(t, []testSection{{typ: 1, data: []byte("0123456789")}})
	r := openBytes(t, b[:len(b)-3]) // the table is intact, the data cut short
	w := bpx.NewWriter(io.Discard)
	if err := w.CopySection(r.Sections[0]); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("CopySection of a truncated section: %v, want ErrFormat", err)
	}
	if w.SectionCount() != 0 {
		t.Errorf("failed copy counted as a section")
	}
	w.Close()
}

func TestRewriteReferenceFilesKeepsSectionsIdentical(t *testing.T) {
	root := writerSamples(t)
	var names []string
	for _, sub := range []string{"reference-generated", "real"} {
		m, err := filepath.Glob(filepath.Join(root, sub, "*.bpx"))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) == 0 {
		t.Skip("no reference files")
	}
	for _, name := range names {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := openBytes(t, want)
		var out bytes.Buffer
		if err := bpx.Rewrite(&out, src, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The reference's layout is ours, so an unedited rewrite of a
		// reference file is the file itself, minus the stale bytes that
		// in-place saves leave after FileSize (real/BPX-rs_tests_test.bpx).
		if n := src.Header.FileSize; n < uint64(len(want)) {
			want = want[:n]
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: rewrite differs from the original (%d vs %d bytes)", name, out.Len(), len(want))
		}
	}
}
