package main

import (
	"bytes"
	"debug/buildinfo"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestWriteVersion: the module version, the revision with its modified
// mark, the commit time and the Go version come from the build information;
// what it lacks reads "(devel)" and "unknown".
func TestWriteVersion(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"none", nil, "bpx (devel)\nrevision unknown\n" + runtime.Version() + platform},
		{"devel", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/gobpx/bpx", Version: "(devel)"}},
			"bpx (devel)\nrevision unknown\ngo1.99.1" + platform},
		{"release", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "false"}}},
			"bpx v1.2.3\nrevision 0123abcd\ncommitted at 2026-01-02T03:04:05Z\ngo1.99.1" + platform},
		{"modified", &debug.BuildInfo{GoVersion: "go1.99.1",
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}},
			"bpx (devel)\nrevision 0123abcd (modified)\ngo1.99.1" + platform},
	} {
		var b bytes.Buffer
		writeVersion(&b, tc.info)
		if b.String() != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, b.String(), tc.want)
		}
	}
}

// TestVersionCommand: "bpx version" and "bpx --version" print the same,
// and the built binary prints the revision its build information records.
func TestVersionCommand(t *testing.T) {
	r := runBPX(t, nil, "version")
	if r.Code != exitOK || r.Stderr != "" || !strings.HasPrefix(r.Stdout, "bpx ") {
		t.Fatalf("version: %+v", r)
	}
	if r2 := runBPX(t, nil, "--version"); r2 != r {
		t.Errorf("--version differs: %+v", r2)
	}
	if testing.Short() {
		return
	}
	r = runBinary(t, nil, "--version")
	info, err := buildinfo.ReadFile(filepath.Join(binDir, "bpx"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	writeVersion(&want, info)
	if r.Code != exitOK || r.Stdout != want.String() {
		t.Errorf("binary: %+v, want %q", r, want.String())
	}
}
