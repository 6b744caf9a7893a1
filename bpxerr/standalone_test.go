package bpxerr_test

import (
	"os/exec"
	"strings"
	"testing"
)

// standalone lists the packages that the spec says are usable outside a
// BPX container, so that a program importing them gets neither the
// container nor a compression library.
var standalone = []string{
	"github.com/gobpx/bpx/bpxerr",
	"github.com/gobpx/bpx/sd",
	"github.com/gobpx/bpx/strings",
	"github.com/gobpx/bpx/table",
}

// forbidden reports why the dependency pkg must not be linked into a
// standalone package, or "" when it may.
func forbidden(pkg string) string {
	switch {
	case pkg == "github.com/gobpx/bpx":
		return "the container package"
	case strings.HasPrefix(pkg, "compress/"),
		strings.Contains(pkg, "/compress/"),
		strings.Contains(pkg, "xz"),
		strings.Contains(pkg, "zstd"):
		return "a compression library"
	}
	return ""
}

func TestStandaloneDeps(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found: cannot list dependencies")
	}
	for _, pkg := range standalone {
		out, err := exec.Command(goCmd, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 || deps[len(deps)-1] != pkg {
			t.Fatalf("go list -deps %s: package missing from its own list %q", pkg, deps)
		}
		for _, dep := range deps {
			if why := forbidden(dep); why != "" {
				t.Errorf("%s depends on %s, %s", pkg, dep, why)
			}
		}
	}
}

func TestForbidden(t *testing.T) {
	for pkg, want := range map[string]bool{
		"github.com/gobpx/bpx":                     true,
		"compress/zlib":                            true,
		"github.com/klauspost/compress/flate":      true,
		"github.com/gobpx/bpx/internal/xzdec":      true,
		"github.com/gobpx/bpx/bpxerr":              false,
		"github.com/gobpx/bpx/internal/jsonstr":    false,
		"unicode/utf8":                             false,
		"github.com/gobpx/bpx/formats/blk/zstdish": true,
	} {
		if got := forbidden(pkg) != ""; got != want {
			t.Errorf("forbidden(%q) = %v, want %v", pkg, got, want)
		}
	}
}
