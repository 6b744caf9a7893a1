package bpx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// SaveFile replaces (or creates) the file name with what write produces,
// atomically: write gets a buffered temporary file in the same directory,
// which is flushed, synced to disk and renamed over name only if write
// succeeds; the directory is then synced so the rename is durable. If
// write or any step before the rename fails, or the program crashes, name
// is left untouched and the temporary file is removed (after a crash a
// ".NAME.tmp-*" file may remain).
//
// The new file gets the permission bits of the file it replaces, or 0644,
// and on Unix its owner and group as far as the process may change them:
// root keeps both; another user keeps the group if they are a member of
// it, and otherwise the new file is theirs (the save does not fail for it).
// A symbolic link at name is replaced by the file, not followed. Where
// renaming over an open file is not allowed (Windows), close readers of
// name first.
func SaveFile(name string, write func(io.Writer) error) error {
	return SaveFileCheck(name, write, nil)
}

// SaveFileCheck is SaveFile with a last check: check, if not nil, runs
// after the temporary file is complete and synced, just before it is
// renamed over name; if it returns an error, name is left untouched, the
// temporary file is removed and SaveFileCheck returns the error as it is.
// Use it to make sure that name was not changed by someone else since it
// was read (an edit must not replace a file that another edit just saved).
func SaveFileCheck(name string, write func(io.Writer) error, check func() error) error {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	perm := fs.FileMode(0o644)
	old, serr := os.Lstat(name)
	if serr == nil && old.Mode().IsRegular() {
		perm = old.Mode().Perm()
	} else {
		old = nil
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	tmp := f.Name()
	renamed := false
	defer func() { // also on panic in write
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	if old != nil {
		keepOwner(f, old)
	}
	if err := f.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("bpx: save %s: %w", name, err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("bpx: save %s: saved, but syncing the directory failed: %w", name, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Windows cannot open directories
// for syncing and does not need it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}
