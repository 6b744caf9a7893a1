//go:build unix

package bpx

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives the temporary file f the owner and group of the file it
// replaces (described by old), as far as the process may: root keeps both;
// another user cannot give a file away, so f stays theirs, but keeps the
// group where the user is a member of it. Failing to do so is not an error
// (the edit itself succeeded; the file is then owned as any new file of
// the user). Called before the permission bits are set, as changing the
// owner may clear set-ID bits.
func keepOwner(f *os.File, old fs.FileInfo) {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		return
	}
	have, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || (have.Uid == want.Uid && have.Gid == want.Gid) {
		return
	}
	if f.Chown(int(want.Uid), int(want.Gid)) == nil || have.Gid == want.Gid {
		return
	}
	f.Chown(-1, int(want.Gid)) // not root: the group only, if allowed
}
