//go:build linux

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/types/pack"
)

// testbpx.BlockMapBombPackage is a valid package: the library reads every
// object as its 10 zero bytes and the data section whole, and the block
// map of the stream (at a size whose map a caller may ask for) lists
// every block, each checked against its LZMA2 chunk headers.
func TestBlockMapBombPackageValid(t *testing.T) {
	for _, blocks := range []int{5000} {
		b := testbpx.BlockMapBombPackage(t, blocks)
		p, err := pack.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range testbpx.BlockMapBombObjects {
			got, err := p.ReadFile(name)
			if err != nil || !bytes.Equal(got, make([]byte, testbpx.BlockMapBombObjectSize)) {
				t.Errorf("%d blocks: %s = %x, %v; want %d zeros", blocks, name, got, err, testbpx.BlockMapBombObjectSize)
			}
		}
		s := p.Reader.FindSection(pack.SectionData)
		data, err := s.Data()
		if err != nil || len(data) != blocks*testbpx.BlockMapBombBlock || !bytes.Equal(data, make([]byte, len(data))) {
			t.Errorf("%d blocks: data section: %d bytes, %v; want %d zeros", blocks, len(data), err, blocks*testbpx.BlockMapBombBlock)
		}
		if blocks <= bpx.DefaultMaxBlocks {
			if m, err := s.Blocks(); err != nil || len(m) != blocks {
				t.Errorf("%d blocks: a map of %d blocks, %v", blocks, len(m), err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 41, goal 3, case 7: a file whose xz index lists a million blocks
// of 64 bytes (30 MB, 2 MB of it the index). Before 98c5d02 a reader
// built a map of every block, outside the cache budget, before it read
// any block header: "bpx cat" of one object of this file peaked at
// 120 MiB. "bpx cat" of the first object and "bpx ls" now each peak under
// the cache budget (pack.DefaultCacheSize, 16 MiB) plus 64 MiB: the map
// is refused (more blocks than a quarter of the cache holds) and the
// section is decoded from its start, streamed. Measured on a 2-core
// machine shared with other jobs: 10 MiB for cat of the first object, 10
// MiB for ls; at this size cat of the last object (51 MiB), unpack (23
// MiB) and verify (30 MiB) decode every block, in 9 to 17 s (the stream
// has more blocks than internal/xzdec keeps records of, so a slower
// decoder takes over), so the test runs them on a file of 30,000 blocks,
// whose map the cache takes: the same bound holds. Then all of it again
// over HTTP.
func TestBlockMapBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bpx binary and a package of a million xz blocks")
	}
	dir := t.TempDir()
	name, small := filepath.Join(dir, "blocks.bpx"), filepath.Join(dir, "small.bpx")
	if err := os.WriteFile(name, testbpx.BlockMapBombPackage(t, 1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(small, testbpx.BlockMapBombPackage(t, 30_000), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = pack.DefaultCacheSize + 64<<20
	check := func(args []string, ok func(result) bool) {
		t.Helper()
		start := time.Now()
		r, peak := runPeakRSS(t, args...)
		t.Logf("bpx %s: peak RSS %d KiB, %v", strings.ReplaceAll(strings.ReplaceAll(strings.Join(args, " "), name, "PKG"), small, "SMALL"), peak>>10, time.Since(start).Round(time.Millisecond))
		if r.Code != exitOK || !ok(r) {
			t.Errorf("bpx %v: %+v", args, r)
		}
		if peak > limit {
			t.Errorf("bpx %v: peak RSS %d MiB, want under %d MiB", args, peak>>20, limit>>20)
		}
	}
	// "first" is in the first block; "last" ends the section, so its read
	// decodes every block. TestBlockMapBombPackageValid reads the others.
	want := string(make([]byte, testbpx.BlockMapBombObjectSize))
	all := func(name, small string) {
		check([]string{"cat", name, "first"}, func(r result) bool { return r.Stdout == want })
		check([]string{"cat", small, "last"}, func(r result) bool { return r.Stdout == want })
		check([]string{"ls", name}, func(r result) bool {
			return strings.Count(r.Stdout, "\n") == len(testbpx.BlockMapBombObjects) && strings.Contains(r.Stdout, "across")
		})
		out := filepath.Join(t.TempDir(), "out")
		check([]string{"unpack", "-C", out, small}, func(result) bool {
			for _, obj := range testbpx.BlockMapBombObjects {
				if b, err := os.ReadFile(filepath.Join(out, obj)); err != nil || string(b) != want {
					return false
				}
			}
			return true
		})
		check([]string{"verify", small}, func(result) bool { return true })
	}
	all(name, small)
	// The same over HTTP (a real server on 127.0.0.1, ranges as a CDN
	// serves them): the remote reader's own cache counts in the bound.
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	all(srv.URL+"/blocks.bpx", srv.URL+"/small.bpx")
}
