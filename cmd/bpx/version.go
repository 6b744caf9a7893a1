package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

func setupVersion(*flag.FlagSet) func(*env, []string) int {
	return func(e *env, pos []string) int {
		if len(pos) != 0 {
			return e.usageError("takes no arguments")
		}
		info, _ := debug.ReadBuildInfo()
		writeVersion(e.Stdout, info)
		return exitOK
	}
}

// writeVersion writes what "bpx version" prints for the build information
// info (nil when the binary has none):
//
//	bpx v1.2.0
//	revision 0123abcd... (modified)
//	committed at 2026-01-02T03:04:05Z
//	go1.24.0 linux/amd64
//
// The version is "(devel)" and the revision "unknown" when the build did
// not record them; the time line is left out then.
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	version, revision, modified, at := "(devel)", "unknown", false, ""
	goVersion := runtime.Version()
	if info != nil {
		if v := info.Main.Version; v != "" {
			version = v
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				at = s.Value
			}
		}
	}
	fmt.Fprintf(w, "bpx %s\n", version)
	if modified {
		revision += " (modified)"
	}
	fmt.Fprintf(w, "revision %s\n", revision)
	if at != "" {
		fmt.Fprintf(w, "committed at %s\n", at)
	}
	fmt.Fprintf(w, "%s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
}
