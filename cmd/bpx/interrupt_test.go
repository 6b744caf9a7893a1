//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptCleansUp (issue 24, item 2): SIGINT or SIGTERM while a
// writing command runs, once its temporary files exist, makes it remove
// them all (".NAME.tmp-*" beside the output, "bpx-pack-*" and "bpx-spool-*"
// in $TMPDIR), leave the output as it was, print one line and exit with
// 128 + the signal's number, as shells expect. bpx used to die at once and
// leave them (hundreds of MB for a large file).
func TestInterruptCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and writes 48 MiB")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	// Incompressible, so that every section is compressed in vain and the
	// command is still busy when the signal comes (most of the work is
	// left: the signal goes as soon as the temporary files appear).
	big := make([]byte, 48<<20)
	rand.NewChaCha8([32]byte{24, 2}).Read(big)
	writeFiles(t, src, map[string]string{"big": string(big)})
	writeFiles(t, filepath.Join(dir, "small"), map[string]string{"a.txt": "a"})
	for _, args := range [][]string{
		{"pack", "-o", filepath.Join(dir, "pkg.bpx"), filepath.Join(dir, "small")},
		{"pack", "-o", filepath.Join(dir, "out.bpx"), filepath.Join(dir, "small")},
		{"pack", "-c", "none", "-o", filepath.Join(dir, "raw.bpx"), src},
		{"keygen", "-o", filepath.Join(dir, "key")},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		args []string
		out  string // the file written, in dir
		// noSpool: the command writes no temporary file in $TMPDIR,
		// only the output's.
		noSpool bool
	}{
		{"add", syscall.SIGINT, []string{"add", "-C", src, "pkg.bpx", "big"}, "pkg.bpx", false},
		{"add", syscall.SIGTERM, []string{"add", "-l", "fast", "-C", src, "pkg.bpx", "big"}, "pkg.bpx", false},
		{"pack", syscall.SIGTERM, []string{"pack", "-o", "out.bpx", "src"}, "out.bpx", false},
		{"pack", syscall.SIGINT, []string{"pack", "-l", "fast", "-o", "new.bpx", "src"}, "new.bpx", false},
		// No file is read: the cancellation must reach the re-encoding.
		{"repack", syscall.SIGINT, []string{"repack", "--all", "raw.bpx"}, "raw.bpx", false},
		{"diff", syscall.SIGTERM, []string{"diff", "--patch", "patch.bpx", "empty", "src"}, "patch.bpx", false},
		// Signing 48 MiB in place: stopped while it hashes or copies.
		{"sign", syscall.SIGINT, []string{"sign", "--key", "key", "raw.bpx"}, "raw.bpx", true},
		{"pack", syscall.SIGTERM, []string{"pack", "--key", "key", "-l", "fast", "-o", "signed.bpx", "src"}, "signed.bpx", false},
	} {
		t.Run(tc.name+"-"+tc.sig.String(), func(t *testing.T) {
			before := dirFiles(t, dir)
			tmp := t.TempDir()
			cmd := exec.Command(bpxBinary(t), tc.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			hang := time.After(2 * time.Minute) // bounds a hang, not a speed
			saved := "." + tc.out + ".tmp-"
		wait: // until the temporary file of the output and one in TMPDIR exist
			for {
				select {
				case err := <-exited:
					t.Fatalf("bpx %v ended before any temporary file was seen (%v): %s", tc.args, err, stderr.Bytes())
				case <-hang:
					cmd.Process.Kill()
					t.Fatalf("bpx %v made no temporary files", tc.args)
				case <-time.After(2 * time.Millisecond):
				}
				if hasPrefixed(t, dir, saved) && (tc.noSpool || hasPrefixed(t, tmp, "bpx-pack-") || hasPrefixed(t, tmp, "bpx-spool-")) {
					break wait
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-hang:
				cmd.Process.Kill()
				t.Fatalf("bpx %v did not end after %v: %s", tc.args, tc.sig, stderr.Bytes())
			}
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode() // -1 when killed by the signal
			}
			if want := 128 + int(tc.sig); code != want {
				t.Errorf("exit status %d (%v), want %d", code, err, want)
			}
			if want := "bpx " + tc.name + ": interrupted\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
			if after := dirFiles(t, dir); !maps.Equal(before, after) {
				t.Errorf("files beside the output changed:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
			}
		})
	}
}

// dirFiles maps each regular file directly in dir to the hash of its bytes.
func dirFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][32]byte{}
	for _, e := range ents {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] = sha256.Sum256(b)
		}
	}
	return m
}

// hasPrefixed reports whether dir holds a file whose name starts with prefix.
func hasPrefixed(t *testing.T, dir, prefix string) bool {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), prefix) })
}
