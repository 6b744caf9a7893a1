package pull

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx/types/pack"
)

// FuzzPull pulls a fuzzed file over an older package: no panic, no hang;
// a pull that succeeds leaves the served bytes, or, where the served
// bytes differ from the chunk digests served with them, the bytes the
// digests name (taken from the local file); one that fails leaves the
// local file as it was and no LOCAL.part (nothing was interrupted).
func FuzzPull(f *testing.F) {
	tree := fstest.MapFS{}
	// Small files, so that the packages (about 110 KB, seven chunks) are
	// inputs the fuzzer mutates and minimizes quickly: with files of
	// 1.1 MB it ran 10 executions in 90 s.
	for i, n := range []int{4_000, 9_000, 30_000, 70_000} {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(j*7 + i*13 + j>>9)
		}
		tree[string(rune('a'+i))+".bin"] = &fstest.MapFile{Data: b}
	}
	old := packBytes(f, tree, pack.WithChunkDigests(true))
	tree["e.txt"] = &fstest.MapFile{Data: bytes.Repeat([]byte("new file "), 1000)}
	newer := packBytes(f, tree, pack.WithChunkDigests(true))
	f.Add(newer)
	f.Add(old)
	f.Add(newer[:len(newer)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		local := filepath.Join(dir, "game.bpx")
		if err := os.WriteFile(local, old, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Pull(context.Background(), io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), local)
		got, rerr := os.ReadFile(local)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err == nil && !bytes.Equal(got, data) {
			// Chunks copied from the local file are the ones the
			// served digests name; a file whose bytes are not must fail
			// a pull that fetches every chunk.
			fresh := filepath.Join(dir, "fresh.bpx")
			if _, err := Pull(context.Background(), io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))), fresh); err == nil {
				t.Fatal("a pull that succeeded left other bytes than the served ones, which match their digests")
			}
		}
		if err != nil && !bytes.Equal(got, old) {
			t.Fatalf("a failed pull (%v) changed the local file", err)
		}
		if _, serr := os.Stat(local + PartSuffix); err != nil && serr == nil {
			t.Fatalf("a failed pull (%v) left %s", err, PartSuffix)
		}
	})
}

// FuzzReadHead reads the head of a whole download (readHead) from fuzzed
// bytes: no panic, no allocation beyond what the bytes hold and the
// section count's bound, and a size that covers the head.
func FuzzReadHead(f *testing.F) {
	tree := fstest.MapFS{"a.txt": &fstest.MapFile{Data: []byte("hello")}}
	b := packBytes(f, tree)
	f.Add(b)
	f.Add(b[:60])
	f.Fuzz(func(t *testing.T, data []byte) {
		head, size, err := readHead(bytes.NewReader(data))
		if err != nil {
			return
		}
		if size < int64(len(head)) || !bytes.Equal(head, data[:len(head)]) {
			t.Fatalf("head of %d bytes, size %d", len(head), size)
		}
	})
}
