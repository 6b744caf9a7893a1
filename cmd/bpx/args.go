package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/gobpx/bpx"
)

// parseArgs parses flags that may appear before, between or after the
// positional arguments ("bpx cat FILE -s 2" works like "bpx cat -s 2 FILE").
// A lone "--" ends flag parsing. It returns the positional arguments, or
// ok == false with the exit status when parsing stopped (bad flag: 2,
// -h: 0).
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, status int, ok bool) {
	for {
		if status, ok := parse(fs, args); !ok {
			return nil, status, false
		}
		rest := fs.Args()
		if len(args) > 0 && len(rest) > 0 && len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		if len(rest) == 0 {
			return pos, 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
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
