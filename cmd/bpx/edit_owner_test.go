//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// checkOwner fails unless the file name has the owner, group and mode.
func checkOwner(t *testing.T, name string, uid, gid int, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != uid || int(st.Gid) != gid || fi.Mode().Perm() != mode {
		t.Errorf("%s: owner %d, group %d, mode %v; want %d, %d, %v", name, st.Uid, st.Gid, fi.Mode().Perm(), uid, gid, mode)
	}
}

// TestEditKeepsOwner: a package owned by nobody, 0640, stays nobody's
// after root edits it (issue 24: the game service running as nobody could
// no longer read it); a user who is not root keeps the package's group
// when they are a member of it, and the edit succeeds.
func TestEditKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root; run as root to check that edits keep a package's owner and group")
	}
	const nobody, users = 65534, 100
	dir, err := os.MkdirTemp("", "bpx-owner-test-") // reachable by nobody, unlike t.TempDir's parent
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	pkg := packTree(t, dir, map[string]string{"a.txt": "a"})
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"b.txt": "b"})
	for _, p := range []string{dir + "/mod", dir + "/mod/b.txt"} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	setOwner := func(uid, gid int) {
		t.Helper()
		if err := os.Chown(pkg, uid, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(pkg, 0o640); err != nil {
			t.Fatal(err)
		}
	}

	setOwner(nobody, nobody)
	if r := runBPX(t, nil, "add", "-C", dir+"/mod", pkg, "b.txt"); r.Code != exitOK {
		t.Fatalf("add as root: %+v", r)
	}
	checkOwner(t, pkg, nobody, nobody, 0o640)

	// nobody, a member of the group users, edits root's package of that
	// group: it cannot stay root's, but stays the group's.
	bin, err := os.ReadFile(bpxBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "bpx")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	setOwner(0, users)
	cmd := exec.Command(exe, "rm", pkg, "b.txt")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{users}}}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("rm as nobody: %v: %s", err, errb.Bytes())
	}
	checkOwner(t, pkg, nobody, users, 0o640)
}
