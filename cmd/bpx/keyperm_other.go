//go:build !unix

package main

import "io/fs"

// checkKeyMode accepts every secret key file where Unix permissions do
// not apply (Windows keeps access in ACLs, as ssh does there).
func checkKeyMode(name string, fi fs.FileInfo) error { return nil }
