//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkKeyMode refuses a secret key file of the user's own that others may
// read or write, as ssh refuses it ("UNPROTECTED PRIVATE KEY FILE"): a
// key readable by everyone on the machine is a key anyone may sign with.
func checkKeyMode(name string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%s: permissions %#o are too open: a secret key must not be accessible by others (chmod 600 %s)", name, fi.Mode().Perm(), name)
}
