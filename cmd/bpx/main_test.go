package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gobpx/bpx/internal/samples"
)

// result is what one run of bpx produced.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runBPX runs bpx in process with args (and optional stdin) and returns its
// output and exit status.
func runBPX(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errb)
	return result{out.String(), errb.String(), code}
}

// runBPXIn runs bpx in process with dir as the working directory.
func runBPXIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	t.Chdir(dir)
	return runBPX(t, nil, args...)
}

// The binary, built on first use by the end-to-end tests.
var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// runBinary builds the bpx binary once and runs it with args, as a user
// would: it checks what running in process cannot (exit statuses set by
// os.Exit, no stack trace on standard error).
func runBinary(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(bpxBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running bpx %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// bpxBinary builds the bpx binary once and returns its path.
func bpxBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "bpx-cli-test"); binErr != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(binDir, "bpx"), ".")
		if out, err := build.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building bpx: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "bpx")
}

// samplesDir returns the shared samples folder or skips the test.
func samplesDir(t *testing.T) string { return samples.Dir(t, "") }

// checkOneLineError asserts that a failed run printed a single-line
// diagnostic, and no Go stack trace.
func checkOneLineError(t *testing.T, r result) {
	t.Helper()
	msg := strings.TrimRight(r.Stderr, "\n")
	if msg == "" || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine ") {
		t.Errorf("want one line on stderr, got %q", r.Stderr)
	}
}

// TestBinary runs the built binary end to end: help, usage and input errors
// and a pack, ls, cat, unpack round trip.
func TestBinary(t *testing.T) {
	if r := runBinary(t, nil); r.Code != exitUsage || !strings.Contains(r.Stderr, "Commands:") || r.Stdout != "" {
		t.Errorf("no args: %+v", r)
	}
	if r := runBinary(t, nil, "help", "ls"); r.Code != exitOK || !strings.HasPrefix(r.Stdout, "usage: bpx ls ") {
		t.Errorf("help ls: %+v", r)
	}
	if r := runBinary(t, nil, "no-such-command"); r.Code != exitUsage || !strings.Contains(r.Stderr, `"no-such-command"`) {
		t.Errorf("unknown command: %+v", r)
	}
	if r := runBinary(t, nil, "ls", "--bogus", "x.bpx"); r.Code != exitUsage {
		t.Errorf("unknown flag: %+v", r)
	}
	r := runBinary(t, nil, "ls", filepath.Join(t.TempDir(), "missing.bpx"))
	if r.Code != exitFail {
		t.Errorf("missing file: %+v", r)
	}
	checkOneLineError(t, r)
	r = runBinary(t, []byte("BO3"), "bo3d", "-")
	if r.Code != exitFail || !strings.Contains(r.Stderr, "shorter than the 20-byte header") {
		t.Errorf("short stdin: %+v", r)
	}
	checkOneLineError(t, r)

	src, tmp := t.TempDir(), t.TempDir()
	writeFiles(t, src, roundTripFiles)
	pkg := filepath.Join(tmp, "p.bpx")
	if r := runBinary(t, nil, "pack", "-q", "-o", pkg, src); r.Code != exitOK || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("pack: %+v", r)
	}
	if r := runBinary(t, nil, "ls", pkg); r.Code != exitOK || len(strings.Split(strings.TrimSpace(r.Stdout), "\n")) != len(roundTripFiles) {
		t.Errorf("ls: %+v", r)
	}
	if r := runBinary(t, nil, "cat", pkg, "models/ship.mesh"); r.Code != exitOK || r.Stdout != roundTripFiles["models/ship.mesh"] {
		t.Errorf("cat: exit %d, %d bytes, %s", r.Code, len(r.Stdout), r.Stderr)
	}
	out := filepath.Join(tmp, "out")
	if r := runBinary(t, nil, "unpack", "-q", "-C", out, pkg); r.Code != exitOK {
		t.Fatalf("unpack: %+v", r)
	}
	if got := readFiles(t, out); !equalMaps(got, roundTripFiles) {
		t.Errorf("unpacked tree differs: %v", got)
	}
}
