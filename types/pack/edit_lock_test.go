package pack

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// addFile returns an edit that adds name holding name.
func addFile(name string) func(*Editor) error {
	return func(e *Editor) error {
		w, err := e.Create(name)
		if err == nil {
			_, err = io.WriteString(w, name)
		}
		return err
	}
}

// TestEditFileSourceChanged (issue 24, item 5): an edit whose package is
// replaced by another edit while it runs fails with ErrChanged, leaves the
// other edit's package byte for byte and removes its temporary file; it
// used to replace it, losing the other edit without an error.
func TestEditFileSourceChanged(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "base.bpx")
	if err := os.WriteFile(name, pkgBytes(t, editTree()), 0o644); err != nil {
		t.Fatal(err)
	}
	var inner []byte
	err := EditFile(name, func(e *Editor) error {
		if err := addFile("outer.txt")(e); err != nil {
			return err
		}
		// Another edit completes meanwhile (written beside and renamed
		// over, as an edit that does not wait for this one would).
		other := filepath.Join(dir, "other.bpx")
		if err := EditFileTo(name, other, addFile("inner.txt")); err != nil {
			return err
		}
		var err error
		if inner, err = os.ReadFile(other); err != nil {
			return err
		}
		return os.Rename(other, name)
	})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("EditFile = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, inner) {
		t.Fatal("the package is not the one the other edit wrote")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files left in the directory: %v", ents)
	}
}

// TestEditFileConcurrent: two edits of one package at once either both
// land or one fails with ErrChanged; never both succeed with one lost.
func TestEditFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "base.bpx")
	for round := range 20 {
		if err := os.WriteFile(name, pkgBytes(t, editTree()), 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, f := range []string{"a.txt", "b.txt"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = EditFile(name, addFile(f))
			}()
		}
		wg.Wait()
		p, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range []string{"a.txt", "b.txt"} {
			_, serr := fs.Stat(p, f)
			switch {
			case errs[i] == nil && serr != nil:
				t.Errorf("round %d: the edit adding %s succeeded, but the package lacks it (other edit: %v)", round, f, errs[1-i])
			case errs[i] != nil && !errors.Is(errs[i], ErrChanged):
				t.Errorf("round %d: adding %s: %v, want nil or ErrChanged", round, f, errs[i])
			}
		}
		p.Close()
	}
}
