package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/samples"
)

// bpxBinary is the path of the bpx binary built once for all tests.
var bpxBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bpx-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bpxBinary = filepath.Join(dir, "bpx")
	build := exec.Command("go", "build", "-o", bpxBinary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building bpx:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary produced.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runBPX runs the built binary with args (and optional stdin) and returns its
// output and exit status. It fails the test only if the binary cannot start.
func runBPX(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	return runCmd(t, exec.Command(bpxBinary, args...), stdin)
}

// runBPXIn runs the binary with dir as its working directory.
func runBPXIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bpxBinary, args...)
	cmd.Dir = dir
	return runCmd(t, cmd, nil)
}

func runCmd(t *testing.T, cmd *exec.Cmd, stdin []byte) result {
	t.Helper()
	args := cmd.Args[1:]
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

func TestHelpAndUsage(t *testing.T) {
	if r := runBPX(t, nil); r.Code != exitUsage {
		t.Errorf("no args: exit %d, want %d", r.Code, exitUsage)
	}
	if r := runBPX(t, nil, "help"); r.Code != exitOK || !strings.Contains(r.Stdout, "usage: bpx") {
		t.Errorf("help: exit %d, stdout %q", r.Code, r.Stdout)
	}
	r := runBPX(t, nil, "no-such-command")
	if r.Code != exitUsage {
		t.Errorf("unknown command: exit %d, want %d", r.Code, exitUsage)
	}
	checkOneLineError(t, r)
}
