package pack

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

func TestSub(t *testing.T) {
	p := packOf(t, nil, func(w *Writer) error { return w.AddFS(testTree()) })
	sub, err := fs.Sub(p, "dir")
	if err != nil {
		t.Fatal(err)
	}
	// fs.Sub's own subtree has no Stat: having it shows Package.Sub ran.
	if _, ok := sub.(fs.StatFS); !ok {
		t.Fatalf("fs.Sub did not use Package.Sub: %T", sub)
	}
	if err := fstest.TestFS(sub, "a.txt", "sub/b.bin", "sub/deeper/c.txt"); err != nil {
		t.Fatal(err)
	}
	deeper, err := fs.Sub(sub, "sub/deeper")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(deeper, "c.txt"); err != nil || string(b) != "c" {
		t.Errorf("ReadFile through two Subs = %q, %v", b, err)
	}
	_, err = fs.Stat(sub, "missing.txt")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "missing.txt" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v", err)
	}
	if _, err := p.Sub("../x"); err == nil {
		t.Error("Sub(../x) succeeded")
	}
	if same, _ := p.Sub("."); same != fs.FS(p) {
		t.Error(`Sub(".") is not the package itself`)
	}
}
