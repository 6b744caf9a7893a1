package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func blkSample(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(samplesDir(t), "blk", name)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sectionTextLF is the engine text of the samples' tree, with LF ends.
const sectionTextLF = `vec4f:p4=1.25, 2.5, 5, 10
int:i=42
long:i64=64

alpha{
  str:t="hello"
  bool:b=yes
  color:c=1, 2, 3, 4

  gamma{
    vec2i:ip2=3, 4
    vec2f:p2=1.25, 2.5
    transform:m=[[1, 0, 0] [0, 1, 0] [0, 0, 1] [1.25, 2.5, 5]]
  }
}

beta{
  float:r=1.25
  vec2i:ip2=1, 2
  vec3f:p3=1.25, 2.5, 5
}
`

func TestBLKDecodeEveryKind(t *testing.T) {
	nm := blkSample(t, "nm")
	for _, name := range []string{"section_fat.blk", "section_fat_s.blk", "section_fat_zst.blk",
		"section_slim.blk", "section_slim_zst.blk", "section_slim_zst_dict.blk"} {
		// The nm and dictionary are found beside the file, or given.
		for _, args := range [][]string{{"blk", "--lf", blkSample(t, name)}, {"blk", "--lf", "--nm", nm, "--dict", blkSample(t, "bfb732560ad45234690acad246d7b14c2f25ad418a146e5e7ef68ba3386a315c.dict"), blkSample(t, name)}} {
			r := runBPX(t, nil, args...)
			if r.Code != exitOK || r.Stdout != sectionTextLF {
				t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, r.Code, r.Stderr, r.Stdout)
			}
		}
	}
	// Default text is the engine's, with CRLF.
	r := runBPX(t, nil, "blk", blkSample(t, "section_fat.blk"))
	if r.Stdout != strings.ReplaceAll(sectionTextLF, "\n", "\r\n") {
		t.Errorf("CRLF text: %q", r.Stdout)
	}
}

func TestBLKJSONMatchesWTBlk(t *testing.T) {
	r := runBPX(t, nil, "blk", "--format", "json", blkSample(t, "section_fat_zst.blk"))
	if r.Code != exitOK || r.Stdout != string(readFile(t, blkSample(t, "expected.json"))) {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", r.Code, r.Stderr, r.Stdout)
	}
	// Merged: add a second int:i to the root as wt_blk's test does.
	text := strings.Replace(sectionTextLF, "long:i64=64\n", "long:i64=64\nint:i=420\n", 1)
	r = runBPX(t, []byte(text), "blk", "--format", "json", "--merge", "-")
	if r.Code != exitOK || r.Stdout != string(readFile(t, blkSample(t, "expected_merged.json"))) {
		t.Fatalf("merged: exit %d, stderr %q, stdout:\n%s", r.Code, r.Stderr, r.Stdout)
	}
}

// typed JSON and text both encode back to the sample bytes exactly.
func TestBLKEncodeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	typed := filepath.Join(dir, "tree.json")
	r := runBPX(t, nil, "blk", "--format", "typed-json", "-o", typed, blkSample(t, "section_slim_zst.blk"))
	if r.Code != exitOK {
		t.Fatalf("typed-json: %q", r.Stderr)
	}
	txt := filepath.Join(dir, "tree.txt")
	os.WriteFile(txt, []byte(sectionTextLF), 0o644)
	for _, tc := range []struct {
		in, kind, want string
		extra          []string
	}{
		{typed, "fat", "section_fat.blk", nil},
		{txt, "fat", "section_fat.blk", nil},
		{typed, "slim", "section_slim.blk", []string{"--nm", blkSample(t, "nm")}},
	} {
		out := filepath.Join(dir, "out.blk")
		args := append([]string{"blk", "--encode", "--kind", tc.kind, "-o", out}, tc.extra...)
		r := runBPX(t, nil, append(args, tc.in)...)
		if r.Code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		if !bytes.Equal(readFile(t, out), readFile(t, blkSample(t, tc.want))) {
			t.Errorf("%s -> %s differs from %s", tc.in, tc.kind, tc.want)
		}
	}
	// Compressed kinds are checked by decoding them again.
	for _, kind := range []string{"fat-zst", "slim-zst", "slim-zst-dict"} {
		out := filepath.Join(dir, kind+".blk")
		r := runBPX(t, nil, "blk", "--encode", "--kind", kind, "--nm", blkSample(t, "nm"), "-o", out, typed)
		if r.Code != exitOK {
			t.Fatalf("%s: %s", kind, r.Stderr)
		}
		r = runBPX(t, nil, "blk", "--lf", "--nm", blkSample(t, "nm"), out)
		if r.Code != exitOK || r.Stdout != sectionTextLF {
			t.Errorf("%s: exit %d %s\n%s", kind, r.Code, r.Stderr, r.Stdout)
		}
	}
}

func TestBLKToBPX(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tree.bpx")
	r := runBPX(t, nil, "blk", "--to-bpx", "-o", out, blkSample(t, "section_fat.blk"))
	if r.Code != exitOK {
		t.Fatalf("to-bpx: %s", r.Stderr)
	}
	if b := readFile(t, out); !bytes.HasPrefix(b, []byte("BPX")) {
		t.Fatalf("not a BPX file: % x", b[:8])
	}
	r = runBPX(t, nil, "blk", "--lf", out)
	if r.Code != exitOK || r.Stdout != sectionTextLF {
		t.Fatalf("from BPX: exit %d %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
}

func TestBLKErrors(t *testing.T) {
	dir := t.TempDir()
	lonely := filepath.Join(dir, "slim.blk")
	os.WriteFile(lonely, readFile(t, blkSample(t, "section_slim.blk")), 0o644)
	dictOnly := filepath.Join(dir, "dict.blk")
	os.WriteFile(dictOnly, readFile(t, blkSample(t, "section_slim_zst_dict.blk")), 0o644)
	bad := filepath.Join(dir, "bad.blk")
	os.WriteFile(bad, []byte{1, 0, 1, 0, 0x7f, 0}, 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"blk", lonely}, exitFail, "--nm"},
		{[]string{"blk", "--nm", blkSample(t, "nm"), "--dict", bad, dictOnly}, exitFail, "dictionary"},
		{[]string{"blk", bad}, exitFail, "at offset 4"},
		{[]string{"blk", filepath.Join(dir, "missing.blk")}, exitFail, "no such file"},
		{[]string{"blk"}, exitUsage, "want exactly one FILE"},
		{[]string{"blk", "--format", "yaml", bad}, exitUsage, "unknown --format"},
		{[]string{"blk", "--encode", bad}, exitUsage, "need -o"},
		{[]string{"blk", "--encode", "--kind", "bbf", "-o", "x", bad}, exitUsage, "cannot write the legacy kind bbf"},
		{[]string{"blk", "--kind", "zip", bad}, exitUsage, "unknown --kind \"zip\""},
		{[]string{"blk", "--encode", "--kind", "FAT", "-o", "x", bad}, exitUsage, "unknown --kind"},
		{[]string{"blk", "--kind", "fat", bad}, exitFail, "names size is 0 for 1 names at offset 1"},
		{[]string{"blk", "--kind", "slim", "-"}, exitFail, "--nm"},
	} {
		r := runBPX(t, []byte("a:i=1"), tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.Code, r.Stderr, tc.code, tc.want)
		}
		if tc.code == exitFail {
			checkOneLineError(t, r)
		}
	}
}

// --kind without --encode reads a body stored without its kind byte, of
// every kind, from a file or standard input.
func TestBLKKindBody(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ sample, kind string }{
		{"section_fat.blk", "fat"}, {"section_fat_s.blk", "fat"}, {"section_fat_zst.blk", "fat-zst"},
		{"section_slim.blk", "slim"}, {"section_slim_zst.blk", "slim-zst"}, {"section_slim_zst_dict.blk", "slim-zst-dict"},
	} {
		data := readFile(t, blkSample(t, tc.sample))
		if data[0] != byte(blkKinds[tc.kind]) {
			t.Fatalf("%s does not start with the kind of %s", tc.sample, tc.kind)
		}
		// The nm and dictionary are not beside the body: pass them.
		body := filepath.Join(dir, tc.sample+".body")
		os.WriteFile(body, data[1:], 0o644)
		args := []string{"blk", "--lf", "--kind", tc.kind, "--nm", blkSample(t, "nm"), "--dict", blkSample(t, "bfb732560ad45234690acad246d7b14c2f25ad418a146e5e7ef68ba3386a315c.dict")}
		for _, in := range [][]string{{body}, {"-"}} {
			r := runBPX(t, data[1:], append(args, in...)...)
			if r.Code != exitOK || r.Stdout != sectionTextLF {
				t.Errorf("%s as %s (%s): exit %d, stderr %q, stdout:\n%s", tc.sample, tc.kind, in[0], r.Code, r.Stderr, r.Stdout)
			}
		}
	}
	// The legacy BBF3 body is read as its whole file is.
	bbf := readFile(t, blkSample(t, "section_bbf.blk"))
	whole := runBPX(t, bbf, "blk", "--format", "typed-json", "-")
	body := runBPX(t, bbf[1:], "blk", "--format", "typed-json", "--kind", "bbf", "-")
	if whole.Code != exitOK || body.Code != exitOK || body.Stdout != whole.Stdout {
		t.Fatalf("bbf body: exit %d %q, whole file: exit %d %q", body.Code, body.Stderr, whole.Code, whole.Stderr)
	}
}

// A body written by bpx blk --encode, without its first byte, reads back
// with --kind (no samples needed), also into a BPX container.
func TestBLKKindBodyOfEncoded(t *testing.T) {
	dir := t.TempDir()
	text := "a:i[]=[1;2;]\n\"@override:b\"{ c:t=x }\n"
	want := "a:i=1\na:i=2\n\n\"@override:b\"{\n  c:t=\"x\"\n}\n"
	for _, kind := range []string{"fat", "fat-zst"} {
		out := filepath.Join(dir, kind+".blk")
		if r := runBPX(t, []byte(text), "blk", "--encode", "--kind", kind, "-o", out, "-"); r.Code != exitOK {
			t.Fatalf("%s: %s", kind, r.Stderr)
		}
		body := readFile(t, out)[1:]
		r := runBPX(t, body, "blk", "--lf", "--kind", kind, "-")
		if r.Code != exitOK || r.Stdout != want {
			t.Errorf("%s body: exit %d %q\n%s", kind, r.Code, r.Stderr, r.Stdout)
		}
		bpxOut := filepath.Join(dir, kind+".bpx")
		if r := runBPX(t, body, "blk", "--kind", kind, "--to-bpx", "-o", bpxOut, "-"); r.Code != exitOK {
			t.Fatalf("%s to BPX: %s", kind, r.Stderr)
		}
		if r := runBPX(t, nil, "blk", "--lf", bpxOut); r.Code != exitOK || r.Stdout != want {
			t.Errorf("%s body via BPX: exit %d %q\n%s", kind, r.Code, r.Stderr, r.Stdout)
		}
	}
}
