package pull

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/types/pack"
)

// fixture is an old and a new version of a package.
type fixture struct {
	old, new []byte
}

func newFixture(t testing.TB, opts ...pack.WriterOption) fixture {
	tree := gameTree(3<<20, 1)
	return fixture{old: packBytes(t, tree, opts...), new: packBytes(t, patch(tree, 2), opts...)}
}

func writeFile(t testing.TB, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

// mustBe fails the test unless name holds want and LOCAL.part is gone.
func mustBe(t testing.TB, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, not the expected %d", name, len(got), len(want))
	}
	if _, err := os.Stat(name + PartSuffix); err == nil {
		t.Fatalf("%s%s left behind", name, PartSuffix)
	}
}

// planAndPull plans the pull of s's file over local, which holds fx.old,
// then pulls it, and checks that the plan's figures are the pull's and
// that local is fx.new.
func planAndPull(t *testing.T, s *server, local string, fx fixture) *Result {
	t.Helper()
	plan, err := PlanURL(context.Background(), s.url(), local, []remote.Option{remote.WithClient(s.Client())})
	if err != nil {
		t.Fatal(err)
	}
	mustBeOld(t, local, fx.old)
	s.setHook(nil) // counts from 0
	res, err := s.pull(t, context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
	// The pull's first request also gets the rest of its 16 KiB.
	if plan.Copied != res.Copied || plan.Requests != res.Requests || plan.Fetched > res.Fetched || plan.Fetched < res.Fetched-16<<10 {
		t.Errorf("plan %+v, pull %+v", plan, res)
	}
	return res
}

func TestPullRebuilt(t *testing.T) {
	fx := newFixture(t)
	s := newServer(t, fx.new)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	res := planAndPull(t, s, local, fx)
	if fi, _ := os.Stat(local); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the old file's 0640", fi.Mode().Perm())
	}
	reqs, sent := s.counts()
	t.Logf("%+v; server: %d requests, %d bytes of %d", res, reqs, sent, len(fx.new))
	if res.Copied+res.Fetched < int64(len(fx.new)) || res.Copied == 0 {
		t.Errorf("copied %d + fetched %d of %d", res.Copied, res.Fetched, len(fx.new))
	}
	// Three changed files of about 80 KB and three new ones of about 45
	// KB, in a package of 3 MB: a pull fetches a small part of it.
	if sent > int64(len(fx.new))/4 {
		t.Errorf("the server sent %d bytes of a %d-byte package", sent, len(fx.new))
	}
	if res.Fetched != sent {
		t.Errorf("Fetched %d, the server sent %d", res.Fetched, sent)
	}

	// Pulled again: up to date, nothing written, two requests.
	before, _ := os.Stat(local)
	res, err := s.pull(t, context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(local)
	if !res.UpToDate || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("second pull: %+v, modified %v -> %v", res, before.ModTime(), after.ModTime())
	}
	mustBe(t, local, fx.new)
}

func TestPullFresh(t *testing.T) {
	fx := newFixture(t)
	s := newServer(t, fx.new)
	dir := t.TempDir()
	local := filepath.Join(dir, "game.bpx")
	res, err := s.pull(t, context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
	// The whole file, and part of the first request's 16 KiB again.
	if res.Copied != 0 || res.Fetched < int64(len(fx.new)) || res.Fetched > int64(len(fx.new))+16<<10 || res.Requests != 3 {
		t.Errorf("%+v", res)
	}

	// With the old version as a seed, a new file takes from it.
	fresh := filepath.Join(dir, "other.bpx")
	seed := filepath.Join(dir, "old.bpx")
	writeFile(t, seed, fx.old)
	res, err = s.pull(t, context.Background(), fresh, WithSeeds(seed, filepath.Join(dir, "missing")))
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, fresh, fx.new)
	if res.Copied < int64(len(fx.new))/2 {
		t.Errorf("copied %d bytes from the seed, of %d", res.Copied, len(fx.new))
	}
}

// TestPullNoDigests: a package without chunk digests is downloaded whole.
func TestPullNoDigests(t *testing.T) {
	fx := newFixture(t, pack.WithChunkDigests(false))
	s := newServer(t, fx.new)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	res := planAndPull(t, s, local, fx)
	if !res.Whole || res.Copied != 0 {
		t.Errorf("%+v", res)
	}
}

// TestPullNotBPX: any file is downloaded whole; a damaged one fails.
func TestPullNotBPX(t *testing.T) {
	s := newServer(t, []byte("not a BPX file at all, but long enough to have a header"))
	local := filepath.Join(t.TempDir(), "x")
	writeFile(t, local, []byte("old"))
	if _, err := s.pull(t, context.Background(), local); !errors.Is(err, bpx.ErrFormat) {
		t.Fatalf("got %v, want ErrFormat", err)
	}
	mustBe(t, local, []byte("old"))
}
