package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/types/pack"
)

// rewriteSection writes the BPX file name again, as name+suffix, with the
// data of its section of type typ changed by change, stored raw with a
// CRC32 checksum as the package writers store their summaries.
func rewriteSection(t *testing.T, name, suffix string, typ uint8, change func([]byte)) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b = testbpx.ReplaceSection(t, b, typ, bpx.ChecksumCRC32, func(d []byte) []byte { change(d); return d })
	changed := name + suffix
	if err := os.WriteFile(changed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return changed
}

// TestSignRefusesWhatVerifyRejects: issue 41. bpx sign signed whatever it
// was given: a damaged package, or one whose chunk digests lie (every read
// succeeds, no pull can use it), came out signed, a signature vouching for
// it. It now refuses a file bpx verify rejects, printing what verify
// prints, and leaves the file as it was.
func TestSignRefusesWhatVerifyRejects(t *testing.T) {
	f := newSignFixture(t)
	noise := make([]byte, 2<<20) // enough objects for chunk digests
	r := rand.New(rand.NewPCG(41, 5))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	big := filepath.Join(f.dir, "big")
	writeFiles(t, big, map[string]string{"noise.bin": string(noise), "a.txt": "a"})
	pkg := filepath.Join(f.dir, "big.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", pkg, big); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	if r := runBPX(t, nil, "sign", "--key", f.key, "-o", filepath.Join(f.dir, "big-signed.bpx"), pkg); r.Code != exitOK {
		t.Fatalf("sign of a good package: %+v", r)
	}
	for what, name := range map[string]string{
		"damaged":             tamper(t, f.plain, ".damaged"),
		"lying chunk digests": rewriteSection(t, pkg, ".lying", pack.SectionChunkDigests, func(d []byte) { d[24+4] ^= 1 }),
	} {
		v := runBPX(t, nil, "verify", "-q", name)
		if v.Code != exitFail || v.Stderr == "" {
			t.Fatalf("%s: verify: %+v", what, v)
		}
		before, _ := os.ReadFile(name)
		for _, args := range [][]string{{"sign", "--key", f.key, name}, {"sign", "--key", f.key, "-o", name + ".signed", name}} {
			r := runBPX(t, nil, args...)
			if r.Code != exitFail || !strings.Contains(r.Stderr, v.Stderr) || !strings.Contains(r.Stderr, "not signed") {
				t.Errorf("%s: %s: %+v; want a failure that says what verify says:\n%s", what, strings.Join(args, " "), r, v.Stderr)
			}
		}
		if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
			t.Errorf("%s: sign changed the file", what)
		}
		if _, err := os.Stat(name + ".signed"); err == nil {
			t.Errorf("%s: sign -o wrote a signed file", what)
		}
	}
}

// TestEditsRefuseLyingChunkDigests: issue 41. bpx add, rm, mv and repack
// copy the sections they keep, and took their chunk digests from the
// package's own list: a list that lies about them passed into the edited
// package. The edit now fails, naming the chunk, and leaves the package
// as it was.
func TestEditsRefuseLyingChunkDigests(t *testing.T) {
	dir := t.TempDir()
	noise := make([]byte, 2<<20)
	r := rand.New(rand.NewPCG(41, 6))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	src := filepath.Join(dir, "src")
	writeFiles(t, src, map[string]string{"noise.bin": string(noise), "a.txt": "a", "b.txt": "b"})
	pkg := filepath.Join(dir, "p.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	// A chunk in the middle of noise.bin's section, which every edit copies.
	rc, err := bpx.OpenReader(pkg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := pack.ReadChunkDigests(&rc.Reader)
	rc.Close()
	if d == nil || err != nil {
		t.Fatalf("chunk digests %v, %v", d, err)
	}
	k := len(d.Chunks) / 2
	lying := rewriteSection(t, pkg, ".lying", pack.SectionChunkDigests, func(b []byte) { b[24+36*k+4] ^= 1 })
	before, _ := os.ReadFile(lying)
	for _, args := range [][]string{
		{"add", "-C", src, lying, "a.txt"},
		{"rm", lying, "b.txt"},
		{"mv", lying, "a.txt", "c.txt"},
		{"repack", lying},
	} {
		r := runBPX(t, nil, args...)
		if r.Code != exitFail || !strings.Contains(r.Stderr, "chunk digests") || !strings.Contains(r.Stderr, fmt.Sprintf("offset %d", d.Chunks[k].Off)) {
			t.Errorf("%s: %+v; want a failure naming the chunk at offset %d", args[0], r, d.Chunks[k].Off)
		}
	}
	if after, _ := os.ReadFile(lying); !bytes.Equal(before, after) {
		t.Error("an edit changed the package")
	}
}
