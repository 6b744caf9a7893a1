package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// otherSections describes each section of the container name whose type
// is not a package's own, in table order: its header (but the pointer) and
// its stored bytes.
func otherSections(t *testing.T, name string) []string {
	t.Helper()
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out []string
	for _, s := range rc.Sections {
		switch s.Type {
		case 1, 2, 0xF1, 0xF4, 0xFE, 0xFF: // data, object table, object digests, times, metadata, strings
			continue
		}
		b, err := io.ReadAll(s.OpenRaw())
		if err != nil {
			t.Fatal(err)
		}
		h := s.SectionHeader
		h.Pointer = 0
		out = append(out, fmt.Sprintf("%+v sha256:%x", h, sha256.Sum256(b)))
	}
	return out
}

// TestEditCommandsKeepOtherSections: add, rm, mv, repack and repack --all
// copy a section of another type (added with bpx.Rewrite) byte for byte
// (issue 24: it vanished after bpx add).
func TestEditCommandsKeepOtherSections(t *testing.T) {
	dir := t.TempDir()
	pkg := packTree(t, dir, roundTripFiles)
	rc, err := bpx.OpenReader(pkg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = bpx.Rewrite(&buf, &rc.Reader, func(e *bpx.Editor) error {
		return e.Append(0x42, bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: bpx.ChecksumCRC32}, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Repeat("game data ", 300))
			return err
		})
	})
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkg, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := otherSections(t, pkg)
	if len(want) != 1 {
		t.Fatalf("%d sections of type 0x42, want 1", len(want))
	}
	mod := filepath.Join(dir, "mod")
	writeFiles(t, mod, map[string]string{"readme.txt": "replaced\n", "new/a.txt": "a"})
	for _, args := range [][]string{
		{"add", "-C", mod, pkg, "readme.txt", "new"},
		{"rm", pkg, "scripts/init.lua"},
		{"mv", pkg, "new", "moved"},
		{"repack", pkg},
		{"repack", "--all", "-c", "zlib", pkg},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
		if got := otherSections(t, pkg); !slices.Equal(got, want) {
			t.Errorf("after %v, the sections of other types are %q, want %q", args, got, want)
		}
	}
	if r := runBPX(t, nil, "verify", pkg); r.Code != exitOK {
		t.Errorf("verify: %+v", r)
	}
}
