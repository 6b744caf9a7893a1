package bpx_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
)

func TestSaveFileKeepsOriginalOnFailure(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "game.bpx")
	orig := []byte("original content")
	if err := os.WriteFile(name, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := bpx.SaveFile(name, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("new"), 100000)) // partly flushed to the temporary file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("SaveFile = %v, want the callback's error", err)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, orig) {
		t.Fatalf("original changed to %q", got)
	}
	if left := dirEntries(t, dir); len(left) != 1 {
		t.Fatalf("files in the directory: %v, want only the original", left)
	}

	// A panicking callback leaves the original and no temporary file.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic did not propagate")
			}
		}()
		bpx.SaveFile(name, func(w io.Writer) error {
			w.Write([]byte("partial"))
			panic("callback panics")
		})
	}()
	if got, _ := os.ReadFile(name); !bytes.Equal(got, orig) {
		t.Fatalf("original changed to %q after a panic", got)
	}
	if left := dirEntries(t, dir); len(left) != 1 {
		t.Fatalf("files after a panic: %v", left)
	}
}

func TestSaveFileReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "game.bpx")
	if err := os.WriteFile(name, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := bpx.SaveFile(name, func(w io.Writer) error {
		_, err := io.WriteString(w, "new content")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new content" {
		t.Fatalf("content %q", got)
	}
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "new.bpx")
	if err := bpx.SaveFile(fresh, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644) || fi.Size() != 0 {
		t.Errorf("new file: %v, %v", fi, err)
	}
	if left := dirEntries(t, dir); len(left) != 2 {
		t.Errorf("files: %v, want the two saved ones", left)
	}
	if err := bpx.SaveFile(filepath.Join(dir, "missing", "x.bpx"), func(io.Writer) error { return nil }); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
}

func TestRewriteInPlaceWithSaveFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "mod.bpx")
	first := writeTypedContainer(t, 'P', [16]byte{}, []testSection{
		{typ: 1, o: bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}, data: textData(40000, 5)},
		{typ: 2, data: []byte("replace me")},
	})
	if err := os.WriteFile(name, first, 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	err = bpx.SaveFile(name, func(w io.Writer) error {
		return bpx.Rewrite(w, &rc.Reader, func(e *bpx.Editor) error {
			return e.Replace(1, 2, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, func(w io.Writer) error {
				_, err := io.WriteString(w, "modded")
				return err
			})
		})
	})
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, b)
	r := openBytes(t, b)
	if d, err := r.Sections[1].Data(); err != nil || string(d) != "modded" {
		t.Errorf("replaced section: %q, %v", d, err)
	}
	orig := openBytes(t, first)
	if !sameSection(t, r.Sections[0], orig.Sections[0]) {
		t.Error("untouched xz section changed")
	}
}

// TestSaveFileCheck: the check runs once the new content is written, and
// its error keeps the file as it was and removes the temporary file.
func TestSaveFileCheck(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "game.bpx")
	orig := []byte("original content")
	if err := os.WriteFile(name, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	changed := errors.New("changed")
	written, checked := false, 0
	write := func(w io.Writer) error {
		written = true
		_, err := w.Write([]byte("new"))
		return err
	}
	err := bpx.SaveFileCheck(name, write, func() error {
		checked++
		if !written {
			t.Error("check ran before write")
		}
		return changed
	})
	if err != changed || checked != 1 {
		t.Fatalf("SaveFileCheck = %v after %d checks, want the check's error after 1", err, checked)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, orig) {
		t.Fatalf("original changed to %q", got)
	}
	if left := dirEntries(t, dir); len(left) != 1 {
		t.Fatalf("files in the directory: %v, want only the original", left)
	}
	if err := bpx.SaveFileCheck(name, write, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Fatalf("saved %q, want new", got)
	}
}
