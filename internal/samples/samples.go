// Package samples locates the shared sample files (../shared/samples beside
// the repository, or $BPX_SAMPLES) for tests, and skips a test cleanly when
// they are absent.
package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the samples folder, or "" when it does not exist.
func Root() string {
	if dir := os.Getenv("BPX_SAMPLES"); dir != "" {
		return dir
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <repo>/internal/samples/samples.go
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "samples")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// Dir returns the samples subfolder sub (e.g. "bpx" or "blk"), or skips the
// test when it is not available.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Skip("shared samples not available (set BPX_SAMPLES)")
	}
	dir := filepath.Join(root, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("samples folder %s not available: %v", dir, err)
	}
	return dir
}

// Read returns the contents of the sample file sub/name, skipping the test
// when the samples are absent.
func Read(t testing.TB, sub, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t, sub), name))
	if err != nil {
		t.Fatalf("reading sample: %v", err)
	}
	return b
}
