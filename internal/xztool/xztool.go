// Package xztool gives tests .xz streams written by the xz(1) tool, the
// reference implementation, and the place of a stream's check.
package xztool

import (
	"bytes"
	"encoding/binary"
	"os/exec"
	"testing"
)

// Compress runs xz(1) single-threaded with args on data and returns the
// stream; the test is skipped when xz is not installed.
func Compress(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	xz, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz not installed")
	}
	cmd := exec.Command(xz, append(args, "-c", "-T1")...)
	cmd.Stdin = bytes.NewReader(data)
	z, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// CheckField returns the offset and size of the check of the last block
// of the single stream z: just before the index, which the footer's
// backward size locates. The size is 0 for check None.
func CheckField(z []byte) (off, size int) {
	size = map[byte]int{0: 0, 1: 4, 4: 8, 10: 32}[z[7]]
	idx := len(z) - 12 - 4*(int(binary.LittleEndian.Uint32(z[len(z)-8:]))+1)
	return idx - size, size
}
