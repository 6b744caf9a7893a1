package main

import (
	"fmt"
	"strconv"

	"github.com/gobpx/bpx"
)

// sectionOrFirst resolves a -s flag: section spec of r (opened from file),
// or when spec is empty the first section of type typ, whose description
// what names it in the error when there is none.
func sectionOrFirst(r *bpx.Reader, file, spec string, typ uint8, what string) (*bpx.Section, error) {
	if spec != "" {
		return sectionByIndex(r, file, spec)
	}
	if s := r.FindSection(typ); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s: no %s section (type 0x%02X); choose one with -s", file, what, typ)
}

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
