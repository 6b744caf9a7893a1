//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, int64(ru.Maxrss) << 10
}

// "bpx info" of the shader bomb of issue 23 (a 160 KiB file with four xz
// Shader sections of 256 MiB of zeros) lists the symbols in under 64 MiB
// of peak RSS: it decompresses no shader (it took 1.56 GB).
func TestInfoShaderBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bpx binary and a 1 GiB shader bomb")
	}
	checkInfoMemory(t, testbpx.ShaderBomb(t, 4, 256<<20), `"a"`, "ConstantBuffer")
}

// "bpx info" of a package whose xz strings section holds 256 MiB of zeros
// counts its object in under 64 MiB of peak RSS: it does not print names,
// so it does not decompress them.
func TestInfoPackageNamesBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bpx binary and a 256 MiB strings bomb")
	}
	checkInfoMemory(t, testbpx.PackageNamesBomb(t, 256<<20), "objects:   1", `"dead_bytes": 0`)
}

// checkInfoMemory runs "bpx info" and "bpx info --json" on file and fails
// unless each exits 0 with one of the strings in its output, and peaks
// under 64 MiB of RSS.
func checkInfoMemory(t *testing.T, file []byte, want ...string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "hostile.bpx")
	if err := os.WriteFile(name, file, 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	for _, args := range [][]string{{"info", name}, {"info", "--json", name}} {
		cmd := strings.Join(args[:len(args)-1], " ")
		r, peak := runPeakRSS(t, args...)
		if r.Code != exitOK || !slices.ContainsFunc(want, func(w string) bool { return strings.Contains(r.Stdout, w) }) || strings.Contains(r.Stdout, "unreadable") {
			t.Errorf("bpx %s: %+v", cmd, r)
		}
		t.Logf("bpx %s: peak RSS %d KiB", cmd, peak>>10)
		if peak > limit {
			t.Errorf("bpx %s: peak RSS %d MiB, want under %d MiB", cmd, peak>>20, limit>>20)
		}
	}
}
