//go:build unix

package pull

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// Issue 42, item 1 and goal 1: whatever is at LOCAL.part's name, a pull
// writes only a file it created itself, follows no link to write, and ends
// with LOCAL the old file or the new one, a regular file of this user's.

// victim is a file a planted LOCAL.part points at.
const victimText = "a file of the player's own, which no pull may write"

// planted prepares a directory with LOCAL (the old release), a victim file
// and, through plant, whatever sits at LOCAL.part's name; it returns
// LOCAL and the victim's name.
func planted(t *testing.T, fx fixture, plant func(local, victim string)) (string, string) {
	t.Helper()
	dir := t.TempDir()
	local, victim := filepath.Join(dir, "game.bpx"), filepath.Join(dir, "victim.txt")
	writeFile(t, local, fx.old)
	if err := os.WriteFile(victim, []byte(victimText), 0o600); err != nil {
		t.Fatal(err)
	}
	plant(local, victim)
	return local, victim
}

// untouched fails the test unless victim still holds victimText with mode
// 0600.
func untouched(t *testing.T, victim string) {
	t.Helper()
	b, err := os.ReadFile(victim)
	fi, err2 := os.Stat(victim)
	if err != nil || err2 != nil || string(b) != victimText || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the victim: %q, %v, %v: written or changed", b, fi.Mode(), errors.Join(err, err2))
	}
}

// regularOwn fails the test unless name is a regular file of this user's,
// no link, of mode perm.
func regularOwn(t *testing.T, name string, perm os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || int(st.Uid) != os.Geteuid() || st.Nlink != 1 || fi.Mode().Perm() != perm {
		t.Fatalf("%s: mode %v, owner %d, %d links; want a regular file of user %d, mode %v, one link",
			name, fi.Mode(), st.Uid, st.Nlink, os.Geteuid(), perm)
	}
}

func TestPullPlantedPart(t *testing.T) {
	fx := newFixture(t)
	forged := withDigests(t, fx.new, func(d *pack.ChunkDigests, data []byte) {
		copy(data[recordOf(d, len(d.Chunks)/2):], "forged digest, 32 bytes long....")
	})
	plants := []struct {
		name  string
		plant func(local, victim string) error
	}{
		{"symlink to a victim", func(local, victim string) error { return os.Symlink(victim, local+PartSuffix) }},
		{"symlink to LOCAL", func(local, victim string) error { return os.Symlink(local, local+PartSuffix) }},
		{"dangling symlink", func(local, victim string) error {
			return os.Symlink(filepath.Join(filepath.Dir(local), "nowhere"), local+PartSuffix)
		}},
		{"hard link to a victim", func(local, victim string) error { return os.Link(victim, local+PartSuffix) }},
		{"hard link to LOCAL", func(local, victim string) error { return os.Link(local, local+PartSuffix) }},
		{"FIFO", func(local, victim string) error { return syscall.Mkfifo(local+PartSuffix, 0o600) }},
		{"file others can write", func(local, victim string) error {
			if err := os.WriteFile(local+PartSuffix, fx.new[:len(fx.new)/2], 0o600); err != nil {
				return err
			}
			return os.Chmod(local+PartSuffix, 0o666)
		}},
		{"directory", func(local, victim string) error { return os.Mkdir(local+PartSuffix, 0o700) }},
	}
	for _, pl := range plants {
		for _, good := range []bool{true, false} {
			served := fx.new
			if !good {
				served = forged
			}
			local, victim := planted(t, fx, func(local, victim string) {
				if err := pl.plant(local, victim); err != nil {
					t.Fatal(err)
				}
			})
			s := newServer(t, served)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			res, err := s.pull(t, ctx, local)
			cancel()
			if good {
				if err != nil {
					t.Fatalf("%s: %v", pl.name, err)
				}
				mustBe(t, local, fx.new)
				regularOwn(t, local, 0o640) // LOCAL's mode (writeFile)
				if res.Resumed != 0 {
					t.Errorf("%s: %d bytes resumed from a file that is not the pull's own", pl.name, res.Resumed)
				}
			} else {
				if !errors.Is(err, bpx.ErrChecksum) {
					t.Fatalf("%s, forged digests: %v, want ErrChecksum", pl.name, err)
				}
				mustBe(t, local, fx.old)
				regularOwn(t, local, 0o640)
			}
			untouched(t, victim)
		}
	}
}

// TestPullOwnPartResumed: a LOCAL.part of this user's own, that only this
// user can write, is resumed; the same bytes writable by others are not.
func TestPullOwnPartResumed(t *testing.T) {
	fx := newFixture(t)
	for _, mode := range []os.FileMode{0o600, 0o644, 0o620, 0o602} {
		local := filepath.Join(t.TempDir(), "game.bpx")
		writeFile(t, local, fx.old)
		if err := os.WriteFile(local+PartSuffix, fx.new[:len(fx.new)*3/4], 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(local+PartSuffix, mode); err != nil {
			t.Fatal(err)
		}
		res, err := newServer(t, fx.new).pull(t, context.Background(), local)
		if err != nil {
			t.Fatal(err)
		}
		mustBe(t, local, fx.new)
		if resumed := res.Resumed > 0; resumed != (mode&0o022 == 0) {
			t.Errorf("LOCAL.part of mode %v: %d bytes resumed", mode, res.Resumed)
		}
	}
}

// TestPullOtherUsersPart: a LOCAL.part another user created (as root, the
// test can make one) is not used: LOCAL ends as this user's file.
func TestPullOtherUsersPart(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a file of another user's")
	}
	fx := newFixture(t)
	local := filepath.Join(t.TempDir(), "game.bpx")
	writeFile(t, local, fx.old)
	if err := os.WriteFile(local+PartSuffix, fx.new[:len(fx.new)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(local+PartSuffix, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	res, err := newServer(t, fx.new).pull(t, context.Background(), local, WithConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
	regularOwn(t, local, 0o640)
	if res.Resumed != 0 {
		t.Errorf("%d bytes resumed from another user's file", res.Resumed)
	}
}

// TestPullLocalNotAFile: LOCAL a symbolic link, a directory or a FIFO is
// refused before anything but the package's head is fetched, and left as
// it is; a FIFO as a seed is skipped. Nothing waits on a FIFO.
func TestPullLocalNotAFile(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		name string
		make func(local string) error
	}{
		{"symlink", func(local string) error {
			target := filepath.Join(filepath.Dir(local), "real.bpx")
			writeFile(t, target, fx.old)
			return os.Symlink(target, local)
		}},
		{"directory", func(local string) error { return os.Mkdir(local, 0o700) }},
		{"FIFO", func(local string) error { return syscall.Mkfifo(local, 0o600) }},
	} {
		local := filepath.Join(t.TempDir(), "game.bpx")
		if err := c.make(local); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Lstat(local)
		s := newServer(t, fx.new)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := s.pull(t, ctx, local)
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut {
			t.Fatalf("LOCAL a %s: %v (a pull must refuse it at once)", c.name, err)
		}
		if reqs, n := s.counts(); reqs > 0 {
			t.Errorf("LOCAL a %s: %d requests (%d bytes) before the refusal", c.name, reqs, n)
		}
		after, _ := os.Lstat(local)
		if before.Mode() != after.Mode() || !os.SameFile(before, after) {
			t.Errorf("LOCAL a %s: changed to %v", c.name, after.Mode())
		}
		if _, err := os.Lstat(local + PartSuffix); err == nil {
			t.Errorf("LOCAL a %s: LOCAL.part left behind", c.name)
		}
	}
	// A FIFO among the seeds: skipped.
	dir := t.TempDir()
	local, fifo := filepath.Join(dir, "game.bpx"), filepath.Join(dir, "seed.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := newServer(t, fx.new).pull(t, ctx, local, WithSeeds(fifo)); err != nil {
		t.Fatalf("a FIFO as a seed: %v", err)
	}
	mustBe(t, local, fx.new)
}

// TestPullNewFileMode: a first download gets the mode the umask gives a
// new file, an update the mode LOCAL had.
func TestPullNewFileMode(t *testing.T) {
	fx := newFixture(t)
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	local := filepath.Join(t.TempDir(), "game.bpx")
	if _, err := newServer(t, fx.old).pull(t, context.Background(), local); err != nil {
		t.Fatal(err)
	}
	regularOwn(t, local, 0o640)
	if err := os.Chmod(local, 0o604); err != nil {
		t.Fatal(err)
	}
	if _, err := newServer(t, fx.new).pull(t, context.Background(), local); err != nil {
		t.Fatal(err)
	}
	mustBe(t, local, fx.new)
	regularOwn(t, local, 0o604)
}

// Issue 42, item 2: the lock covers the rename and the removal. A second
// pull of the same LOCAL that starts right before the first one renames
// (or removes) LOCAL.part finds it locked, instead of opening the file
// that is about to become LOCAL and writing into it.
func TestPullLockCoversRename(t *testing.T) {
	fx := newFixture(t)
	forged := withDigests(t, fx.new, func(d *pack.ChunkDigests, data []byte) {
		copy(data[recordOf(d, len(d.Chunks)/2):], "forged digest, 32 bytes long....")
	})
	for _, c := range []struct {
		step   string
		served []byte
		want   []byte
	}{{"rename", fx.new, fx.new}, {"discard", forged, fx.old}} {
		local := filepath.Join(t.TempDir(), "game.bpx")
		writeFile(t, local, fx.old)
		other := newServer(t, fx.new)
		var second error
		ran := false
		testHook = func(step string) {
			if step == c.step && !ran {
				ran = true
				_, second = other.pull(t, context.Background(), local)
			}
		}
		_, err := newServer(t, c.served).pull(t, context.Background(), local)
		testHook = nil
		if !ran {
			t.Fatalf("%s: the hook did not run (first pull: %v)", c.step, err)
		}
		if !errors.Is(second, ErrBusy) {
			t.Errorf("%s: the second pull: %v, want ErrBusy", c.step, second)
		}
		mustBe(t, local, c.want)
	}
}
