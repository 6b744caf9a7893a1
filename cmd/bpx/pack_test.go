package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles creates files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles returns the regular files under dir.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var roundTripFiles = map[string]string{
	"readme.txt":          "hello\n",
	"empty.bin":           "",
	"models/ship.mesh":    strings.Repeat("vertex data ", 5000),
	"textures/a/b/c.png":  "\x89PNG\r\n\x1a\n",
	"sounds/utf8-é♪.ogg":  "OggS",
	"scripts/init.lua":    "print('hi')\n",
	"deep/1/2/3/4/5/leaf": "leaf",
}

// TestPackLsUnpackRoundTrip runs the real binary: pack a tree with each
// compression, list it, unpack it and compare.
func TestPackLsUnpackRoundTrip(t *testing.T) {
	src := t.TempDir()
	writeFiles(t, src, roundTripFiles)
	for _, z := range []string{"xz", "zlib", "none"} {
		t.Run(z, func(t *testing.T) {
			tmp := t.TempDir()
			pkg := filepath.Join(tmp, "p.bpx")
			if r := runBPX(t, nil, "pack", "-q", "-c", z, "-o", pkg, src); r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
				t.Fatalf("pack: %+v", r)
			}
			r := runBPX(t, nil, "ls", pkg)
			if r.Code != 0 {
				t.Fatalf("ls: %+v", r)
			}
			var names []string
			for n := range roundTripFiles {
				names = append(names, n)
			}
			got := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			if len(got) != len(names) {
				t.Errorf("ls printed %q", r.Stdout)
			}
			for _, n := range names {
				if !strings.Contains(r.Stdout, n+"\n") {
					t.Errorf("ls output lacks %s", n)
				}
			}
			if r := runBPX(t, nil, "cat", pkg, "models/ship.mesh"); r.Code != 0 || r.Stdout != roundTripFiles["models/ship.mesh"] {
				t.Errorf("cat PACKAGE PATH: exit %d, %d bytes, %s", r.Code, len(r.Stdout), r.Stderr)
			}
			if r := runBPX(t, nil, "cat", pkg, "models/missing"); r.Code != exitFail {
				t.Errorf("cat of a missing object: %+v", r)
			}
			out := filepath.Join(tmp, "out")
			if r := runBPX(t, nil, "unpack", "-q", "-C", out, pkg); r.Code != 0 || r.Stderr != "" {
				t.Fatalf("unpack: %+v", r)
			}
			if got := readFiles(t, out); !equalMaps(got, roundTripFiles) {
				t.Errorf("unpacked tree differs: %v", got)
			}
			// Unpacking again over what the first one wrote finishes
			// (an interrupted unpack run again); over a file changed
			// since, it refuses to overwrite, -f allows it.
			if r := runBPX(t, nil, "unpack", "-C", out, pkg); r.Code != exitOK {
				t.Errorf("unpack again: %+v", r)
			}
			var changed string
			for name := range roundTripFiles {
				changed = filepath.Join(out, filepath.FromSlash(name))
				break
			}
			if err := os.WriteFile(changed, []byte("changed since"), 0o644); err != nil {
				t.Fatal(err)
			}
			r = runBPX(t, nil, "unpack", "-C", out, pkg)
			if r.Code != exitFail || !strings.Contains(r.Stderr, "exists") {
				t.Errorf("second unpack: %+v", r)
			}
			checkOneLineError(t, r)
			if r := runBPX(t, nil, "unpack", "-f", "-C", out, pkg); r.Code != 0 {
				t.Errorf("unpack -f: %+v", r)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestPackUsageAndErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"pack", "-o", filepath.Join(dir, "x.bpx")},
		{"pack", "--section-size", "big", "-o", filepath.Join(dir, "x.bpx"), dir},
		{"pack", "--generator", "ABC", "-o", filepath.Join(dir, "x.bpx"), dir},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.Code, exitUsage, r.Stderr)
		}
	}
	r := runBPX(t, nil, "pack", "-o", filepath.Join(dir, "x.bpx"), filepath.Join(dir, "missing"))
	if r.Code != exitFail {
		t.Errorf("missing dir: %+v", r)
	}
	checkOneLineError(t, r)
	if _, err := os.Stat(filepath.Join(dir, "x.bpx")); err == nil {
		t.Error("failed pack left an output file")
	}
}

// TestPackGenerator checks --generator reaches the TypeExt (via ls of the
// package through info is the lead's; here the bytes are checked).
func TestPackGenerator(t *testing.T) {
	src, tmp := t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"a": "a"})
	pkg := filepath.Join(tmp, "g.bpx")
	if r := runBPX(t, nil, "pack", "-q", "--generator", "PK", "-o", pkg, src); r.Code != 0 {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[24:28], []byte{4, 4, 'P', 'K'}) {
		t.Errorf("TypeExt starts % x", b[24:28])
	}
}
