package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestLsSamples(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx")
	r := runBPX(t, nil, "ls", "-l", filepath.Join(dir, "reference-generated", "pkg_small.bpx"))
	want := "" +
		"        size  start     offset  name\n" +
		"          12      2          0  hello.txt\n" +
		"           0      2         12  dir/empty.bin\n" +
		"          13      2         12  dir/utf8-你好.txt\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("ls -l pkg_small: %+v\nwant:\n%s", r, want)
	}
	r = runBPX(t, nil, "ls", filepath.Join(dir, "real", "bpx-tools_dump_tests_test.bpx"))
	if r.Code != 0 || r.Stdout != "LICENSE_LF.txt\n" {
		t.Errorf("ls rev 1: %+v", r)
	}
	r = runBPX(t, nil, "ls", "--json", filepath.Join(dir, "reference-generated", "pkg_xz.bpx"))
	var list []lsEntry
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 2 || list[1] != (lsEntry{"small.txt", 33, 2, 200000, ""}) {
		t.Errorf("ls --json: %v %+v (%s)", err, list, r.Stdout)
	}
	// Malformed objects still list; a non-package fails in one line.
	r = runBPX(t, nil, "ls", filepath.Join(dir, "synthetic", "pkg_offset_beyond_section.bpx"))
	if r.Code != 0 || r.Stdout != "a.txt\n" {
		t.Errorf("ls of a bad-offset package: %+v", r)
	}
	for _, bad := range []string{"reference-generated/shader_pack.bpx", "synthetic/truncated_header.bpx", "synthetic/pkg_bad_arch.bpx", "missing.bpx"} {
		r = runBPX(t, nil, "ls", filepath.Join(dir, filepath.FromSlash(bad)))
		if r.Code != exitFail {
			t.Errorf("ls %s: exit %d", bad, r.Code)
		}
		checkOneLineError(t, r)
	}
	if r := runBPX(t, nil, "ls"); r.Code != exitUsage {
		t.Errorf("ls without args: %+v", r)
	}
}

func TestLsDir(t *testing.T) {
	pkg := packTree(t, t.TempDir(), map[string]string{"a/x.txt": "xx", "a/sub/y": "y", "a.b": "ab", "top": "t"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", pkg, "."}, "a/\na.b\ntop\n"},
		{[]string{"ls", pkg, "a"}, "sub/\nx.txt\n"},
		{[]string{"ls", "-0", pkg, "a"}, "sub/\x00x.txt\x00"},
		{[]string{"ls", "-l", pkg, "a"}, "        size  start     offset  name\n" +
			"         dir      -          -  sub/\n" +
			"           2      4          1  x.txt\n"}, // after the tables, digests and times
	} {
		if r := runBPX(t, nil, c.args...); r.Code != exitOK || r.Stdout != c.want {
			t.Errorf("%q: %+v\nwant %q", c.args, r, c.want)
		}
	}
	r := runBPX(t, nil, "ls", "--json", pkg, "a")
	var list []lsEntry
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 2 || list[0].Path != "a/sub/" || list[1] != (lsEntry{"a/x.txt", 2, 4, 1, ""}) {
		t.Errorf("ls --json DIR: %v %+v", err, list)
	}
	for _, bad := range []string{"top", "missing", "../x"} {
		if r := runBPX(t, nil, "ls", pkg, bad); r.Code != exitFail {
			t.Errorf("ls PKG %s: %+v", bad, r)
		}
	}
}
