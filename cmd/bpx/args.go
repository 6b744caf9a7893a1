package main

import (
	"fmt"
	"strconv"

	"github.com/gobpx/bpx"
)

// sectionByIndex resolves the value of a -s flag against the sections of r
// (opened from file). A value that is not an index is a usage error.
func sectionByIndex(r *bpx.Reader, file, spec string) (*bpx.Section, error) {
	idx, err := strconv.Atoi(spec)
	if err != nil || idx < 0 {
		return nil, fmt.Errorf("%w: -s wants a section index, got %q", errUsage, spec)
	}
	if idx >= len(r.Sections) {
		return nil, fmt.Errorf("%s: no section %d (the file has %d)", file, idx, len(r.Sections))
	}
	return r.Sections[idx], nil
}
