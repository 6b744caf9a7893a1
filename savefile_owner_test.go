//go:build unix

package bpx_test

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/gobpx/bpx"
)

// TestSaveFileKeepsOwner: a package owned by another user (a game service
// running as nobody) stays theirs, with its mode, after root saves it.
func TestSaveFileKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root; run the tests as root to check that SaveFile keeps it")
	}
	const nobody = 65534
	for _, c := range []struct {
		name     string
		uid, gid int
	}{
		{"owner and group", nobody, nobody},
		{"group only", 0, nobody},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "game.bpx")
			if err := os.WriteFile(name, []byte("old"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(name, c.uid, c.gid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(name, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := bpx.SaveFile(name, func(w io.Writer) error {
				_, err := io.WriteString(w, "new content")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if int(st.Uid) != c.uid || int(st.Gid) != c.gid || fi.Mode().Perm() != 0o640 {
				t.Errorf("after the save: owner %d, group %d, mode %v; want %d, %d, 0640", st.Uid, st.Gid, fi.Mode().Perm(), c.uid, c.gid)
			}
			if got, _ := os.ReadFile(name); string(got) != "new content" {
				t.Errorf("content %q", got)
			}
		})
	}
}
