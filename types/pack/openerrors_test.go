package pack

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/sign"
)

// TestOpenErrorsNameTheFile: issue 31 item 5. A loader opening dozens of
// mods learns from the error which one failed: Open's errors, and
// NewReader's over a file or a remote.File, name it once, and still match
// the sentinels.
func TestOpenErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "tex000.png")
	if err := os.WriteFile(png, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, name string) {
		t.Helper()
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != name || !errors.Is(err, bpx.ErrFormat) {
			t.Fatalf("%s: %v", what, err)
		}
		if n := strings.Count(err.Error(), name); n != 1 {
			t.Fatalf("%s: %q names %s %d times", what, err, name, n)
		}
	}
	_, err := Open(png)
	check("Open", err, png)
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = NewReader(f, 108)
	check("NewReader(*os.File)", err, png)

	srv := newCountingServer(t, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...))
	rf, err := remote.Open(context.Background(), srv.URL+"/tex000.png")
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	_, err = NewReader(rf, rf.Size())
	check("NewReader(remote.File)", err, srv.URL+"/tex000.png")

	// A reader without a name: the error as it was.
	b := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	if _, err := NewReader(bytes.NewReader(b), int64(len(b))); !errors.Is(err, bpx.ErrFormat) || strings.Contains(err.Error(), "open") {
		t.Fatalf("NewReader(bytes.Reader): %v", err)
	}
}

// TestTamperedReadSaysWhat: a changed byte under a signed xz section
// fails its read with the signature's error as it is, once: not as a
// corrupt xz stream (the stream is not at fault), and without prefixes
// repeated ("sign: …: bpx: signature check failed").
func TestTamperedReadSaysWhat(t *testing.T) {
	k := testKey(t, 4, "k")
	m, _ := sourceTree(3000)
	good := pkgBytes(t, m, WithSigningKey(k))
	p := openBytes(t, good, WithTrustedKeys(ring(k)))
	sec := busiestSection(p)
	s := p.Reader.Sections[sec]
	bad := bytes.Clone(good)
	bad[s.Pointer+uint64(s.StoredSize())/2] ^= 1
	p = openBytes(t, bad, WithTrustedKeys(ring(k)))
	var err error
	for i, o := range p.Objects() {
		if int(o.Start) == sec {
			if _, err = p.ReadObject(i); err != nil {
				break
			}
		}
	}
	if !errors.Is(err, sign.ErrTampered) || !errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("%v", err)
	}
	msg := err.Error()
	t.Log(msg)
	if strings.Contains(msg, "corrupt") || strings.Count(msg, "signature") != 1 || strings.Count(msg, "sign:") != 1 {
		t.Fatalf("%q", msg)
	}
}
