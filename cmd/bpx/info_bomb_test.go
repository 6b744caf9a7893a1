//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/testbpx"
)

// runPeakRSS runs the built bpx binary with args under GNU time
// (/usr/bin/time, Debian's "time"; the test skips without it) and returns
// its output and its peak resident set size in bytes. Not the Maxrss of
// the child's own rusage: Go starts children with vfork, and Linux counts
// the memory the parent had at the exec in the child's Maxrss, so a child
// of a large test process reports the test's peak. GNU time forks, and
// the grandchild starts from its small copy.
func runPeakRSS(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skipf("no GNU time to measure peak RSS (apt-get install time): %v", err)
	}
	runBinary(t, nil, "version") // builds the binary once
	report := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", report, filepath.Join(binDir, "bpx")}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running bpx %v: %v", args, err)
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("GNU time wrote no report: %v (%s)", err, errb.String())
	}
	// The report's last line is the peak in KiB; a line before it may say
	// that the command exited with a non-zero status.
	lines := strings.Fields(string(b))
	kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("GNU time's report %q: %v", b, err)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, kib << 10
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
