// Package gocorpus gives tests and benchmarks a realistic, reproducible
// input: the Go sources of the installed toolchain.
package gocorpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Source returns the first n bytes of the .go files under
// $(go env GOROOT)/src in walk order, padded with generated Go-like text if
// the tree is smaller (or missing).
func Source(n int) []byte {
	var buf bytes.Buffer
	root := filepath.Join(runtime.GOROOT(), "src")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || buf.Len() >= n {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			b, _ := os.ReadFile(path)
			buf.Write(b)
		}
		return nil
	})
	for buf.Len() < n {
		buf.WriteString("func generated() { return \"filler text for the benchmark corpus\" }\n")
	}
	return buf.Bytes()[:n]
}
