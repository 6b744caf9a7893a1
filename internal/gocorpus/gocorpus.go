// Package gocorpus gives tests and benchmarks a realistic, reproducible
// input: the Go sources of the installed toolchain.
package gocorpus

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// SrcDir returns $(go env GOROOT)/src, or "" if the go command cannot say.
func SrcDir() string {
	srcOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if root := strings.TrimSpace(string(out)); err == nil && root != "" {
			srcDir = filepath.Join(root, "src")
		}
	})
	return srcDir
}

var (
	srcOnce sync.Once
	srcDir  string
)

// Source returns the first n bytes of the .go files under SrcDir in walk
// order, padded with generated Go-like text if the tree is smaller (or
// missing).
func Source(n int) []byte {
	var buf bytes.Buffer
	root := SrcDir()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if root == "" {
			return fs.SkipAll
		}
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
