//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gobpx/bpx/internal/testbpx"
)

// runPeakRSS runs the built bpx binary with args and returns its output
// and its peak resident set size in bytes (Linux reports Maxrss in KiB).
func runPeakRSS(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	runBinary(t, nil, "version") // builds the binary once
	cmd := exec.Command(filepath.Join(binDir, "bpx"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running bpx %v: %v", args, err)
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, ru.Maxrss << 10
}

// "bpx info" of the shader bomb of issue 23 (a 160 KiB file with four xz
// Shader sections of 256 MiB of zeros) lists the symbols in under 64 MiB
// of peak RSS: it decompresses no shader (it took 1.56 GB).
func TestInfoShaderBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bpx binary and a 1 GiB shader bomb")
	}
	file := filepath.Join(t.TempDir(), "shader.bpx")
	if err := os.WriteFile(file, testbpx.ShaderBomb(t, 4, 256<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	for _, args := range [][]string{{"info", file}, {"info", "--json", file}} {
		r, peak := runPeakRSS(t, args...)
		if r.Code != exitOK || !strings.Contains(r.Stdout, `"a"`) || !strings.Contains(r.Stdout, "ConstantBuffer") || strings.Contains(r.Stdout, "unreadable") {
			t.Errorf("bpx %s: %+v", strings.Join(args[:len(args)-1], " "), r)
		}
		t.Logf("bpx %s: peak RSS %d KiB", strings.Join(args[:len(args)-1], " "), peak>>10)
		if peak > limit {
			t.Errorf("bpx %s: peak RSS %d MiB, want under %d MiB", strings.Join(args[:len(args)-1], " "), peak>>20, limit>>20)
		}
	}
}
