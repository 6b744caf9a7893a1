package pull

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// withDigests returns b with its chunk digests section's data replaced by
// what edit makes of it (the section's checksum and the header's made
// right again, as a forger would).
func withDigests(t testing.TB, b []byte, edit func(d *pack.ChunkDigests, data []byte)) []byte {
	t.Helper()
	d := digestsOf(t, b)
	out := testbpx.ReplaceSection(t, b, pack.SectionChunkDigests, bpx.ChecksumCRC32, func(data []byte) []byte {
		edit(d, data)
		return data
	})
	if len(out) != len(b) {
		t.Fatalf("forged file of %d bytes, want %d", len(out), len(b))
	}
	return out
}

// recordOf returns the offset in data of chunk i's digest.
func recordOf(d *pack.ChunkDigests, i int) int {
	return 24 + 36*i + 4
}

func TestPullForgedDigests(t *testing.T) {
	fx := newFixture(t)
	dir := t.TempDir()
	local := filepath.Join(dir, "game.bpx")

	// A digest that matches no byte the server sends: the fetched chunk
	// fails, LOCAL stays, LOCAL.part goes.
	forged := withDigests(t, fx.new, func(d *pack.ChunkDigests, data []byte) {
		copy(data[recordOf(d, len(d.Chunks)/2):], "forged digest, 32 bytes long....")
	})
	writeFile(t, local, fx.old)
	s := newServer(t, forged)
	_, err := s.pull(t, context.Background(), local)
	if !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("forged digest: %v, want ErrChecksum", err)
	}
	mustBe(t, local, fx.old)

	// A list whose chunks the old file holds although the server's file
	// does not: every digest of the new file is replaced by the old
	// file's digest at the same offset and length. Chunks come from LOCAL
	// that the new sections do not hold, and the result fails its
	// sections' checksums.
	// Old and new of the same layout: one byte changed in the middle of
	// a stored file.
	tree := gameTree(3<<20, 1)
	k := "textures/f0004.bin"
	b := bytes.Clone(tree[k].Data)
	b[len(b)/2] ^= 1
	fx.old = packBytes(t, tree)
	tree[k] = &fstest.MapFile{Data: b}
	fx.new = packBytes(t, tree)
	writeFile(t, local, fx.old)
	dOld := digestsOf(t, fx.old)
	byOff := map[int64]pack.Chunk{}
	for _, c := range dOld.Chunks {
		byOff[c.Off] = c
	}
	replaced := 0
	forged = withDigests(t, fx.new, func(d *pack.ChunkDigests, data []byte) {
		for i, c := range d.Chunks {
			if o, ok := byOff[c.Off]; ok && o.Len == c.Len && o.Digest != c.Digest {
				copy(data[recordOf(d, i):], o.Digest[:])
				replaced++
			}
		}
	})
	if replaced == 0 {
		t.Fatal("no chunk of the old file at the offset of a changed one: the fixture does not test this")
	}
	s.set(forged, `"v2"`)
	_, err = s.pull(t, context.Background(), local)
	if !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("digests of the old file's chunks: %v, want ErrChecksum", err)
	}
	mustBe(t, local, fx.old)
}

func digestsOf(t testing.TB, b []byte) *pack.ChunkDigests {
	t.Helper()
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := pack.ReadChunkDigests(r)
	if d == nil || err != nil {
		t.Fatalf("chunk digests %v, %v", d, err)
	}
	return d
}

// TestPullChangedMidway: the file changes on the server during the pull.
func TestPullChangedMidway(t *testing.T) {
	fx := newFixture(t)
	other := packBytes(t, gameTree(3<<20, 7))
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	s := newServer(t, fx.new)
	s.setHook(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 3 { // after the head and the digests
			s.set(other, `"v2"`)
		}
		return false
	})
	_, err := s.pull(t, context.Background(), local)
	if err == nil {
		t.Fatal("no error")
	}
	t.Log(err)
	mustBeOld(t, local, fx.old)
}

// mustBeOld fails unless name holds want (LOCAL.part may remain).
func mustBeOld(t testing.TB, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s changed", name)
	}
}

// TestPullResume: a pull cut off (the context cancelled, connections
// dropped) keeps LOCAL and LOCAL.part; the next takes what LOCAL.part
// holds and fetches the rest only.
func TestPullResume(t *testing.T) {
	defer func(n int64) { maxRequest = n }(maxRequest)
	maxRequest = 128 << 10 // several requests for a small file
	tree := gameTree(3<<20, 3)
	old := packBytes(t, tree)
	newer := packBytes(t, gameTree(3<<20, 4)) // nothing in common
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, old)

	full := newServer(t, newer)
	if _, err := full.pull(t, context.Background(), filepath.Join(t.TempDir(), "x.bpx"), WithConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	_, fullBytes := full.counts()

	s := newServer(t, newer)
	ctx, cancel := context.WithCancel(context.Background())
	var sent int64
	_, err := s.pull(t, ctx, local, WithConcurrency(1), WithProgress(func(p Progress) {
		if p.Phase == "fetch" && p.Done > p.Total/2 {
			sent = p.Done
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pull: %v", err)
	}
	mustBeOld(t, local, old)
	if _, err := os.Stat(local + PartSuffix); err != nil {
		t.Fatalf("no %s after an interrupted pull: %v", PartSuffix, err)
	}

	// The link drops: every data request fails.
	s.setHook(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n > 2 {
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return true
		}
		return false
	})
	if _, err := s.pull(t, context.Background(), local); err == nil {
		t.Fatal("a pull over a dropped link succeeded")
	}
	mustBeOld(t, local, old)

	s.setHook(nil)
	_, before := s.counts()
	res, err := s.pull(t, context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, newer)
	_, after := s.counts()
	t.Logf("%+v; first pull cut after %d of %d bytes; resumed pull sent %d", res, sent, fullBytes, after-before)
	if res.Resumed < sent/2 || after-before > fullBytes-sent/2 {
		t.Errorf("resumed %d bytes, fetched %d; the whole file takes %d", res.Resumed, after-before, fullBytes)
	}
}

// TestPullKilled: LOCAL.part as a killed process leaves it (the first
// half written, the rest zeros or garbage) is resumed.
func TestPullKilled(t *testing.T) {
	fx := newFixture(t)
	local := filepath.Join(t.TempDir(), "game.bpx")
	part := bytes.Clone(fx.new)
	for i := len(part) / 2; i < len(part); i++ {
		part[i] = byte(i * 7)
	}
	writeFile(t, local+PartSuffix, part[:len(part)*3/4])
	s := newServer(t, fx.new)
	res, err := s.pull(t, context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
	if res.Resumed < int64(len(part))/3 || res.Resumed > int64(len(part))/2 {
		t.Errorf("resumed %d of %d bytes, of which half were right", res.Resumed, len(part))
	}
}

// TestPullBadServer: short bodies and wrong lengths fail the pull and
// leave LOCAL as it was.
func TestPullBadServer(t *testing.T) {
	fx := newFixture(t)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	s := newServer(t, fx.new)
	for name, hook := range map[string]func(w http.ResponseWriter, r *http.Request, n int) bool{
		"short body": func(w http.ResponseWriter, r *http.Request, n int) bool {
			if n <= 2 {
				return false
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Range", r.Header.Get("Range")[len("bytes="):]+"/"+itoa(len(fx.new)))
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(make([]byte, 10))
			return true
		},
		"wrong range": func(w http.ResponseWriter, r *http.Request, n int) bool {
			if n <= 2 {
				return false
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Range", "bytes 0-9/"+itoa(len(fx.new)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(fx.new[:10])
			return true
		},
		"other length": func(w http.ResponseWriter, r *http.Request, n int) bool {
			if n <= 2 {
				return false
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Range", r.Header.Get("Range")[len("bytes="):]+"/"+itoa(len(fx.new)+1))
			w.WriteHeader(http.StatusPartialContent)
			return true
		},
	} {
		s.setHook(hook)
		if _, err := s.pull(t, context.Background(), local); err == nil {
			t.Errorf("%s: no error", name)
		}
		mustBeOld(t, local, fx.old)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPullTrusted(t *testing.T) {
	key, err := sign.GenerateKey(rand.Reader, "publisher")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := sign.GenerateKey(rand.Reader, "someone else")
	tree := gameTree(3<<20, 5)
	old := packBytes(t, tree, pack.WithSigningKey(key))
	newer := packBytes(t, patch(tree, 6), pack.WithSigningKey(key))
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, old)
	s := newServer(t, newer)
	_, err = s.pull(t, context.Background(), local, WithTrustedKeys(sign.NewKeyRing(other.Public())))
	if !errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("untrusted signer: %v, want ErrSignature", err)
	}
	mustBe(t, local, old)
	res, err := s.pull(t, context.Background(), local, WithTrustedKeys(sign.NewKeyRing(key.Public())))
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, newer)
	if res.Copied == 0 {
		t.Errorf("%+v", res)
	}
}

// TestPullBusy: a second pull of the same file while one runs fails at
// once and leaves the first one's LOCAL.part.
func TestPullBusy(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no flock")
	}
	fx := newFixture(t)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	f, err := os.OpenFile(local+PartSuffix, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !lockFile(f) {
		t.Fatal("cannot lock")
	}
	s := newServer(t, fx.new)
	if _, err := s.pull(t, context.Background(), local); !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	mustBeOld(t, local, fx.old)
	if _, err := os.Stat(local + PartSuffix); err != nil {
		t.Fatalf("the running pull's %s was removed", PartSuffix)
	}
	f.Close()
	if _, err := s.pull(t, context.Background(), local); err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
}

// dripWriter sends what it is given a few bytes at a time, a pause after
// each, until its request ends: a server that keeps every request alive
// (no silence as long as the idle timeout) but hardly sends anything.
type dripWriter struct {
	http.ResponseWriter
	done <-chan struct{}
}

func (d dripWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += 16 {
		if _, err := d.ResponseWriter.Write(p[i:min(i+16, len(p))]); err != nil {
			return i, err
		}
		d.ResponseWriter.(http.Flusher).Flush()
		select {
		case <-d.done:
			return i, errors.New("the client went away")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return len(p), nil
}

// Issue 42, item 8 and goal 5: a server that drips its bytes ends the
// pull within the documented bound (WithMinRate), where it kept a pull
// alive for (requests / -j) x 5 minutes. What arrived stays in
// LOCAL.part.
func TestPullDrippingServer(t *testing.T) {
	defer func(g time.Duration) { minRateGrace = g }(minRateGrace)
	minRateGrace = 500 * time.Millisecond
	fx := newFixture(t)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	s := newServer(t, fx.new)
	s.setHook(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n <= 2 { // the head and the digests, at full speed
			return false
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(dripWriter{w, r.Context().Done()}, r, "p.bpx", time.Unix(1e9, 0), bytes.NewReader(fx.new))
		return true
	})
	const rate = 1 << 20
	start := time.Now()
	res, err := s.pull(t, context.Background(), local, WithMinRate(rate))
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v (%+v), want a DeadlineExceeded of WithMinRate", err, res)
	}
	// The bound: what was to fetch at 1 MiB/s and the grace, and the
	// time the test's server takes to notice.
	if limit := minRateGrace + time.Duration(len(fx.new))*time.Second/rate + 2*time.Second; took > limit {
		t.Errorf("the pull took %v, more than %v", took, limit)
	}
	t.Logf("%v after %v", err, took.Round(time.Millisecond))
	mustBeOld(t, local, fx.old)
	if _, err := os.Stat(local + PartSuffix); err != nil {
		t.Errorf("LOCAL.part was not kept: %v", err)
	}
}

// Issue 42, item 9: LOCAL.part is removed when the pull fails because of
// what the server answered, as the documentation says, and kept when the
// pull was cut off and may go on (a server saying to try later, no
// answer). It was kept after every failed request.
func TestPullPartAfterServerFailure(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		status int
		kept   bool
	}{{404, false}, {403, false}, {410, false}, {503, true}, {429, true}, {0, true}} {
		local := filepath.Join(t.TempDir(), "game.bpx")
		writeFile(t, local, fx.old)
		s := newServer(t, fx.new)
		s.setHook(func(w http.ResponseWriter, r *http.Request, n int) bool {
			if n <= 3 { // the head, the digests and the first run, served
				return false
			}
			if c.status == 0 { // no answer: the connection dropped
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return true
			}
			w.WriteHeader(c.status)
			return true
		})
		_, err := s.pull(t, context.Background(), local, WithConcurrency(1))
		if err == nil {
			t.Fatalf("status %d: no error", c.status)
		}
		mustBeOld(t, local, fx.old)
		_, serr := os.Stat(local + PartSuffix)
		if kept := serr == nil; kept != c.kept {
			t.Errorf("status %d (%v): LOCAL.part kept %v, want %v", c.status, err, kept, c.kept)
		}
	}
}

// TestPullMergesNearRuns (issue 42 item 10: at a 500 ms round trip a pull
// took 13.7 of them): an update that changes many small files apart from
// each other (scattered chunks to fetch) costs fewer requests when runs a
// few chunks apart are fetched as one (mergeGap), for at most mergeGap
// bytes more a request saved, each checked against its digest (every other
// one of 120 files of 30 KB changed: 62 requests and 1.44 MB apart, 47 and
// 1.77 MB merged).
func TestPullMergesNearRuns(t *testing.T) {
	tree := fstest.MapFS{}
	for i := range 120 {
		b := make([]byte, 30_000)
		for j := range b {
			b[j] = byte(j*31 + i*7 + j>>7)
		}
		tree[fmt.Sprintf("data/f%03d.bin", i)] = &fstest.MapFile{Data: b}
	}
	old := packBytes(t, tree, pack.WithCompression(bpx.CompressNone))
	for i := 0; i < 120; i += 2 { // one byte of every other file
		b := bytes.Clone(tree[fmt.Sprintf("data/f%03d.bin", i)].Data)
		b[len(b)/2] ^= 0xFF
		tree[fmt.Sprintf("data/f%03d.bin", i)] = &fstest.MapFile{Data: b}
	}
	newer := packBytes(t, tree, pack.WithCompression(bpx.CompressNone))
	results := map[int64]*Result{}
	defer func(g int64) { mergeGap = g }(mergeGap)
	merge := mergeGap
	for _, gap := range []int64{0, merge} {
		mergeGap = gap
		local := filepath.Join(t.TempDir(), "game.bpx")
		writeFile(t, local, old)
		res, err := newServer(t, newer).pull(t, context.Background(), local, WithConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		mustBe(t, local, newer)
		results[gap] = res
		t.Logf("mergeGap %d: %d requests, %d bytes fetched", gap, res.Requests, res.Fetched)
	}
	apart, merged := results[0], results[merge]
	if merged.Requests*10 > apart.Requests*9 || merged.Fetched-apart.Fetched > int64(apart.Requests-merged.Requests)*merge {
		t.Errorf("merged: %+v; apart: %+v", merged, apart)
	}
}
