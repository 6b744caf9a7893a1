package main

import "flag"

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
