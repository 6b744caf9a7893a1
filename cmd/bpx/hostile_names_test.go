package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
	"github.com/gobpx/bpx/types/pack"
)

// hostileNames are object names an attacker may give, in the order of the
// package's object table, each with how a terminal listing shows it: escape
// sequences that set the window title and clear the screen, a new line that
// forges a line of output, a bidi override, a C1 control (CSI), a leading
// double quote, and escapes in a name unpack refuses; a plain name in another
// script stays as it is. (A package cannot name an object with invalid
// UTF-8: such a name does not read. File names can: see TestDiffDirHostileNames.)
var hostileNames = []struct{ name, shown string }{
	{"\x1b]0;TITLE\a\x1b[2J", `"\x1b]0;TITLE\a\x1b[2J"`},
	{"dir/new\nline.txt", `"dir/new\nline.txt"`},
	{"\u202egnp.exe", `"\u202egnp.exe"`},
	{"c1\u009b2J", `"c1\u009b2J"`},
	{`"quoted.txt`, `"\"quoted.txt"`},
	{"plain/日本語.txt", "plain/日本語.txt"},
	{"../up\x1b[2J", `"../up\x1b[2J"`},
}

// writeHostilePackage writes a package holding hostileNames, each object's
// data its index, with the project's writer, into dir, and returns its path.
func writeHostilePackage(t *testing.T, dir string) string {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.AllowInvalidNames(), pack.WithCompression(bpx.CompressNone))
	for i, h := range hostileNames {
		ow, err := w.Create(h.name)
		if err != nil {
			t.Fatal(err)
		}
		ow.Write([]byte{'0' + byte(i)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hostile.bpx")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkTerminalSafe fails unless s is valid UTF-8 whose every rune is
// printable, a line feed or a tab: no C0 control but those, no DEL, no C1
// control, no bidi control, no invalid byte.
func checkTerminalSafe(t *testing.T, where, s string) {
	t.Helper()
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !isPrintOrLayout(r) {
			t.Errorf("%s: %q at byte %d reaches the terminal raw:\n%q", where, s[i:i+size], i, s)
			return
		}
		i += size
	}
}

func isPrintOrLayout(r rune) bool {
	return r == '\n' || r == '\t' || r >= 0x20 && r < 0x7f || r > 0x9f && r != 0x7f && !isFormat(r)
}

// isFormat reports the non-printing runes a name may hide: the bidi
// controls, zero-width characters, the line and paragraph separators.
func isFormat(r rune) bool {
	return r >= 0x200b && r <= 0x200f || r >= 0x2028 && r <= 0x202e || r >= 0x2060 && r <= 0x2069 || r == 0xfeff
}

// shownLines is what a terminal listing prints of hostileNames, each with
// prefix, one a line; skip leaves out the names unpack refuses.
func shownLines(prefix string, skipInvalid bool) string {
	var b strings.Builder
	for _, h := range hostileNames {
		if skipInvalid && strings.HasPrefix(h.name, "../") {
			continue
		}
		b.WriteString(prefix + h.shown + "\n")
	}
	return b.String()
}

// TestLsHostileNames: bpx ls and ls -l print every name that could drive a
// terminal Go-quoted, and plain names as they are; -0 prints them exact,
// NUL-terminated; --json keeps them exact.
func TestLsHostileNames(t *testing.T) {
	pkg := writeHostilePackage(t, t.TempDir())
	r := runBPX(t, nil, "ls", pkg)
	if want := shownLines("", false); r.Code != exitOK || r.Stdout != want {
		t.Errorf("ls: %+v\nwant stdout:\n%s", r, want)
	}
	checkTerminalSafe(t, "ls", r.Stdout)

	r = runBPX(t, nil, "ls", "-l", pkg)
	checkLongRecords(t, "ls -l", r, "\n", false)
	checkTerminalSafe(t, "ls -l", r.Stdout)

	var exact strings.Builder
	for _, h := range hostileNames {
		exact.WriteString(h.name + "\x00")
	}
	r = runBPX(t, nil, "ls", "-0", pkg)
	if r.Code != exitOK || r.Stdout != exact.String() {
		t.Errorf("ls -0: %+v\nwant %q", r, exact.String())
	}
	checkLongRecords(t, "ls -l -0", runBPX(t, nil, "ls", "-l", "-0", pkg), "\x00", true)
	if r := runBPX(t, nil, "ls", "-0", "--json", pkg); r.Code != exitUsage {
		t.Errorf("ls -0 --json: %+v", r)
	}

	r = runBPX(t, nil, "ls", "--json", pkg)
	var list []lsEntry
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != len(hostileNames) {
		t.Fatalf("ls --json: %v %+v", err, r)
	}
	for i, h := range hostileNames {
		if list[i].Path != h.name {
			t.Errorf("ls --json: path %q, want %q", list[i].Path, h.name)
		}
	}
}

// checkLongRecords checks the output of ls -l: one record per hostile
// name, in order, each ended by end and ending with the mark and the name,
// exact or as shown on a terminal.
func checkLongRecords(t *testing.T, where string, r result, end string, exact bool) {
	t.Helper()
	out := r.Stdout
	if !exact {
		// A header row names the columns, aligned with them.
		header, rest, _ := strings.Cut(out, "\n")
		if want := fmt.Sprintf("%12s %6s %10s  %s", "size", "start", "offset", "name"); header != want {
			t.Fatalf("%s: header %q, want %q", where, header, want)
		}
		out = rest
	} else if strings.Contains(out, "offset") {
		t.Fatalf("%s: a header row with -0", where)
	}
	records := strings.Split(strings.TrimSuffix(out, end), end)
	if r.Code != exitOK || len(records) != len(hostileNames) || !strings.HasSuffix(out, end) {
		t.Fatalf("%s: %+v", where, r)
	}
	for i, h := range hostileNames {
		name := h.shown
		if exact {
			name = h.name
		}
		if want := " " + refusedMark(h.name) + name; !strings.HasSuffix(records[i], want) {
			t.Errorf("%s record %d: %q, want it to end with %q", where, i, records[i], want)
		}
	}
}

// refusedMark is the mark of ls -l before name: ! for the hostile name
// unpack refuses, else a space.
func refusedMark(name string) string {
	if strings.HasPrefix(name, "../") {
		return "!"
	}
	return " "
}

// TestLsLayeredHostileNames: the listing of a mod stack follows the same
// rule (the stack shows no name that unpack refuses).
func TestLsLayeredHostileNames(t *testing.T) {
	dir := t.TempDir()
	pkg := writeHostilePackage(t, dir)
	mod := packTree(t, t.TempDir(), map[string]string{"plain/日本語.txt": "mod"})
	byPath := map[string]string{}
	var exact []string
	for _, h := range hostileNames {
		if !strings.HasPrefix(h.name, "../") {
			byPath[h.name] = h.shown
			exact = append(exact, h.name)
		}
	}
	r := runBPX(t, nil, "ls", "-L", mod, pkg)
	if r.Code != exitOK {
		t.Fatalf("ls -L: %+v", r)
	}
	checkTerminalSafe(t, "ls -L", r.Stdout)
	for _, shown := range byPath {
		if !strings.Contains("\n"+r.Stdout, "\n"+shown+"\n") {
			t.Errorf("ls -L lacks the line %s:\n%s", shown, r.Stdout)
		}
	}
	r = runBPX(t, nil, "ls", "-l", "-L", mod, pkg)
	checkTerminalSafe(t, "ls -l -L", r.Stdout)
	if !strings.Contains(r.Stdout, `  "\x1b]0;TITLE\a\x1b[2J"`+"\n") {
		t.Errorf("ls -l -L: %+v", r)
	}
	r = runBPX(t, nil, "ls", "-0", "-L", mod, pkg)
	got := strings.Split(strings.TrimSuffix(r.Stdout, "\x00"), "\x00")
	if r.Code != exitOK || len(got) != len(exact) || !strings.HasSuffix(r.Stdout, "\x00") {
		t.Fatalf("ls -0 -L: %+v", r)
	}
	for _, name := range got {
		if _, ok := byPath[name]; !ok {
			t.Errorf("ls -0 -L: %q is no exact name", name)
		}
	}
}

// TestDiffHostileNames: bpx diff prints the names it compares by the same
// rule; -0 prints them exact; --json keeps them exact.
func TestDiffHostileNames(t *testing.T) {
	pkg := writeHostilePackage(t, t.TempDir())
	empty := t.TempDir()
	r := runBPX(t, nil, "diff", empty, pkg)
	// Diff sorts by name: compare as sets of lines.
	if want := shownLines("+ ", true); r.Code != exitFail || !strings.HasSuffix(r.Stdout, "\n") || !sameLines(r.Stdout, want) {
		t.Errorf("diff: %+v\nwant the lines:\n%s", r, want)
	}
	checkTerminalSafe(t, "diff", r.Stdout+r.Stderr)

	r = runBPX(t, nil, "diff", "-0", empty, pkg)
	records := strings.Split(strings.TrimSuffix(r.Stdout, "\x00"), "\x00")
	var exact []string
	for _, h := range hostileNames {
		if !strings.HasPrefix(h.name, "../") {
			exact = append(exact, "+ "+h.name)
		}
	}
	if r.Code != exitFail || !strings.HasSuffix(r.Stdout, "\x00") || !sameLines(strings.Join(records, "\n"), strings.Join(exact, "\n")) {
		t.Errorf("diff -0: %+v\nwant the records %q", r, exact)
	}
	if r := runBPX(t, nil, "diff", "-0", "--json", empty, pkg); r.Code != exitUsage {
		t.Errorf("diff -0 --json: %+v", r)
	}

	r = runBPX(t, nil, "diff", "--json", empty, pkg)
	var list []struct{ Path, Change string }
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != len(exact) {
		t.Fatalf("diff --json: %v %+v", err, r)
	}
	for _, e := range list {
		if !strings.Contains(strings.Join(exact, "\x00")+"\x00", "+ "+e.Path+"\x00") {
			t.Errorf("diff --json: path %q is no exact name", e.Path)
		}
	}
}

// sameLines reports whether a and b hold the same lines in any order.
func sameLines(a, b string) bool {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// hostileFile copies the file src to a file of dir whose name holds the
// escape sequences of the first hostile name, a bidi override and an
// invalid byte, and returns its path.
func hostileFile(t *testing.T, dir, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "evil\x1b]0;TITLE\a\x1b[2J\u202e\xff.bpx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Skipf("the file system refuses the name: %v", err)
	}
	return path
}

// TestDiffDirHostileNames: a directory may hold names that are not valid
// UTF-8, which bpx diff prints quoted and -0 prints exact.
func TestDiffDirHostileNames(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, name := range []string{"caf\xe9.txt", "t\x1b]0;T\a"} {
		if err := os.WriteFile(filepath.Join(b, name), []byte("x"), 0o644); err != nil {
			t.Skipf("the file system refuses the name %q: %v", name, err)
		}
	}
	r := runBPX(t, nil, "diff", a, b)
	if want := "+ \"caf\\xe9.txt\"\n+ \"t\\x1b]0;T\\a\"\n"; r.Code != exitFail || r.Stdout != want {
		t.Errorf("diff: %+v, want stdout %s", r, want)
	}
	checkTerminalSafe(t, "diff of directories", r.Stdout+r.Stderr)
	r = runBPX(t, nil, "diff", "-0", a, b)
	if want := "+ caf\xe9.txt\x00+ t\x1b]0;T\a\x00"; r.Code != exitFail || r.Stdout != want {
		t.Errorf("diff -0: %+v, want stdout %q", r, want)
	}
}

// TestVerifyInfoHostileNames: verify and info print the file name given on
// the command line by the same rule, and the problems verify finds (which
// name objects) escaped.
func TestVerifyInfoHostileNames(t *testing.T) {
	dir := t.TempDir()
	evil := hostileFile(t, dir, writeHostilePackage(t, t.TempDir()))
	shown := termQuoted(evil)

	r := runBPX(t, nil, "verify", "-q", evil)
	// The name with ".." is refused for extraction: one problem.
	if r.Code != exitFail || r.Stdout != shown+": FAILED (1 problem)\n" || !strings.HasPrefix(r.Stderr, shown+": ") || !strings.Contains(r.Stderr, `../up\x1b[2J`) {
		t.Errorf("verify: %+v", r)
	}
	checkTerminalSafe(t, "verify", r.Stdout+r.Stderr)

	r = runBPX(t, nil, "info", evil)
	if r.Code != exitOK || !strings.Contains(r.Stdout, "file:      "+shown+" (") {
		t.Errorf("info: %+v", r)
	}
	checkTerminalSafe(t, "info", r.Stdout+r.Stderr)
}

// termQuoted is how bpx shows the hostile file name of hostileFile: Go
// quoted, printable runes as they are.
func termQuoted(path string) string {
	return `"` + strings.NewReplacer("\x1b", `\x1b`, "\a", `\a`, "\u202e", `\u202e`, "\xff", `\xff`).Replace(path) + `"`
}

// TestErrorsHostileNames: errors that embed a hostile name (from the
// package, the command line or a flag) reach the terminal escaped, in one
// line.
func TestErrorsHostileNames(t *testing.T) {
	dir := t.TempDir()
	pkg := writeHostilePackage(t, dir)
	out := filepath.Join(dir, "out")
	if r := runBPX(t, nil, "unpack", "-q", "--skip-invalid", "-C", out, pkg); r.Code != exitOK {
		t.Fatalf("unpack --skip-invalid: %+v", r)
	}
	// Files changed since: an unpack again refuses them (it finishes only
	// what an unpack cut off left).
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				f.Write([]byte{'!'})
				f.Close()
			}
		}
		return nil
	})
	const title = `\x1b]0;TITLE\a\x1b[2J`
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		// The files are there: unpack without -f names the first.
		{[]string{"unpack", "-q", "--skip-invalid", "-C", out, pkg}, exitFail, title},
		// A refused name.
		{[]string{"unpack", "-q", "-C", filepath.Join(dir, "out2"), pkg}, exitFail, "refusing"},
		{[]string{"unpack", "-q", "--skip-invalid", "-C", filepath.Join(dir, "out3"), pkg, "no\x1b[2Jsuch"}, exitFail, `no\x1b[2Jsuch`},
		{[]string{"cat", pkg, "missing\x1b]0;T\a"}, exitFail, `missing\x1b]0;T\a`},
		{[]string{"rm", pkg, "gone\x1b[2J\u202e"}, exitFail, `gone\x1b[2J\u202e`},
		{[]string{"mv", pkg, "\x1b]0;TITLE\a\x1b[2J", "dir/new\nline.txt"}, exitFail, `dir/new\nline.txt`},
		{[]string{"ls", filepath.Join(dir, "missing\x1b[2J\x9b.bpx")}, exitFail, `missing\x1b[2J\x9b.bpx`},
		{[]string{"ls", "--evil\x1b[2J", pkg}, exitUsage, `-evil\x1b[2J`},
	} {
		r := runBPX(t, nil, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%q: %+v, want exit %d and %s in stderr", tc.args, r, tc.code, tc.want)
		}
		checkTerminalSafe(t, strings.Join(tc.args[:1], " "), r.Stdout+r.Stderr)
		if tc.code == exitFail {
			checkOneLineError(t, r)
		}
	}
}

// TestTableHostileNames: the text form of a table quotes column names and
// cells holding a C1 control or a bidi override, which the old check (C0
// and DEL only) let through.
func TestTableHostileNames(t *testing.T) {
	var names bpxstrings.Builder
	b, err := table.NewBuilder(&names, "t", []table.Column{
		{Name: "\u202ecol", Type: table.Varchar, Len: 16},
		{Name: "n", Type: table.Uint8, Len: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append("\u009b2J", 1); err != nil {
		t.Fatal(err)
	}
	path := writeSections(t, bpx.SectionOptions{}, map[uint8][]byte{bpx.SectionTypeStrings: names.Bytes()}, b.Bytes())
	r := runBPX(t, nil, "table", path)
	if want := "\"\\u202ecol\"\tn\n\"\\u009b2J\"\t1\n"; r.Code != exitOK || r.Stdout != want {
		t.Errorf("table: %+v\nwant %q", r, want)
	}
	checkTerminalSafe(t, "table", r.Stdout)
}
