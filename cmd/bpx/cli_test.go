package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHelpListsCommands: "bpx help" lists every command with its summary;
// "bpx" alone prints the same list on stderr and fails as bad usage.
func TestHelpListsCommands(t *testing.T) {
	r := runBPX(t, nil, "help")
	if r.Code != exitOK || r.Stderr != "" {
		t.Fatalf("help: %+v", r)
	}
	for _, c := range commands {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c.Name) + ` +` + regexp.QuoteMeta(c.Summary) + `$`).MatchString(r.Stdout) {
			t.Errorf("help lacks the line of %q:\n%s", c.Name, r.Stdout)
		}
	}
	for _, h := range []string{"-h", "--help", "-help"} {
		if r2 := runBPX(t, nil, h); r2 != r {
			t.Errorf("bpx %s differs from bpx help: %+v", h, r2)
		}
	}
	if r2 := runBPX(t, nil); r2.Code != exitUsage || r2.Stdout != "" || r2.Stderr != r.Stdout {
		t.Errorf("no arguments: %+v", r2)
	}
}

// TestCommandHelp: "bpx help CMD", "bpx CMD --help" and "bpx CMD -h" print
// the same page: usage, description, and every flag in the --name style
// with its default.
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		r := runBPX(t, nil, append([]string{"help"}, strings.Fields(c.Name)...)...)
		if r.Code != exitOK || r.Stderr != "" {
			t.Errorf("help %s: %+v", c.Name, r)
			continue
		}
		fs, _ := c.flags()
		flagsHead := "\n\nFlags:\n"
		if !hasFlags(fs) {
			flagsHead = "\n"
		}
		if !strings.HasPrefix(r.Stdout, strings.TrimRight("usage: bpx "+c.Name+" "+strings.Split(c.Usage, "\n")[0], " ")+"\n") || !strings.Contains(r.Stdout, "\n\n"+c.Doc+flagsHead) {
			t.Errorf("help %s: no usage and description:\n%s", c.Name, r.Stdout)
		}
		for _, ex := range c.Examples {
			if want := "\n  # " + ex.Comment + "\n  " + ex.Line + "\n"; !strings.Contains(r.Stdout, "\nExamples:\n") || !strings.Contains(r.Stdout, want) {
				t.Errorf("help %s lacks the example %q:\n%s", c.Name, want, r.Stdout)
			}
		}
		fs.VisitAll(func(f *flag.Flag) {
			value, usage := flag.UnquoteUsage(f)
			head := "\n  " + flagName(f.Name)
			if value != "" {
				head += " " + value
			}
			want := head + "\n        " + usage + defaultNote(f) + "\n"
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("help %s lacks %q:\n%s", c.Name, want, r.Stdout)
			}
		})
		for _, h := range []string{"--help", "-h"} {
			args := append(strings.Fields(c.Name), h)
			if r2 := runBPX(t, nil, args...); r2 != r {
				t.Errorf("bpx %v differs from bpx help %s: %+v", args, c.Name, r2)
			}
		}
	}
	// Defaults: a string is quoted, a number is not, a zero value is left out.
	r := runBPX(t, nil, "help", "pack")
	for _, want := range []string{`(default "xz")`, `(default 1 MiB; 4 MiB with -l max)`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("help pack lacks %s:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, `(default "")`) || strings.Contains(r.Stdout, "(default false)") {
		t.Errorf("help pack shows zero defaults:\n%s", r.Stdout)
	}
	// A command with subcommands shows the help of each.
	r = runBPX(t, nil, "help", "texture")
	if r.Code != exitOK || !strings.Contains(r.Stdout, "usage: bpx texture import ") || !strings.Contains(r.Stdout, "usage: bpx texture export ") {
		t.Errorf("help texture: %+v", r)
	}
	if r2 := runBPX(t, nil, "texture", "--help"); r2 != r {
		t.Errorf("texture --help differs from help texture: %+v", r2)
	}
}

// TestUsageErrors: unknown commands and flags, and missing arguments, exit
// with status 2 and name the problem and the usage on stderr only.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"no-such-command"}, []string{`unknown command "no-such-command"`, "bpx help"}},
		{[]string{"help", "no-such-command"}, []string{`unknown command "no-such-command"`, "bpx help"}},
		{[]string{"help", "ls", "extra"}, []string{`unknown command "ls extra"`}},
		{[]string{"texture"}, []string{"want a subcommand", "usage: bpx texture import", "       bpx texture export"}},
		{[]string{"texture", "convert"}, []string{`unknown subcommand "convert"`, "bpx help texture"}},
		{[]string{"cat", "-s"}, []string{"flag needs an argument: -s\n"}},
		{[]string{"sd", "--depth", "x", "f.bpx"}, []string{"invalid value \"x\" for flag --depth"}},
		{[]string{"ls", "-l=maybe", "f.bpx"}, []string{"invalid boolean value \"maybe\" for -l"}},
	} {
		r := runBPX(t, nil, tc.args...)
		if r.Code != exitUsage || r.Stdout != "" {
			t.Errorf("%v: %+v", tc.args, r)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, r.Stderr, w)
			}
		}
	}
	for _, c := range commands {
		name := strings.Fields(c.Name)
		for _, extra := range [][]string{{"--no-such-flag", "x"}, {}, {"extra", "arguments"}} {
			if len(extra) == 0 && c.Name == "version" || len(extra) == 2 && extra[0] == "extra" && c.Name != "version" {
				continue // version alone is fine; only version refuses any argument
			}
			r := runBPX(t, nil, append(name, extra...)...)
			if r.Code != exitUsage || r.Stdout != "" || !strings.Contains(r.Stderr, strings.TrimRight("usage: bpx "+c.Name+" "+strings.Split(c.Usage, "\n")[0], " ")+"\n") ||
				!strings.Contains(r.Stderr, "bpx help "+c.Name) {
				t.Errorf("bpx %s %v: %+v", c.Name, extra, r)
			}
			if len(extra) > 0 && extra[0] == "--no-such-flag" && !strings.HasPrefix(r.Stderr, "bpx "+c.Name+": flag provided but not defined: --no-such-flag\n") {
				t.Errorf("bpx %s --no-such-flag: stderr %q", c.Name, r.Stderr)
			}
		}
	}
}

// TestBadInput: every command given a file that is not what it wants exits
// with status 1 and one line on stderr.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte{1, 0, 1, 0, 0x7f, 0, 'B', 'P', 'X'}, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"info":           {junk},
		"verify":         {junk},
		"cat":            {"-s", "0", junk},
		"ls":             {junk},
		"pack":           {"-o", filepath.Join(dir, "out.bpx"), junk},
		"unpack":         {"-C", dir, junk},
		"add":            {"-C", dir, junk, "junk"},
		"rm":             {junk, "x"},
		"mv":             {junk, "x", "y"},
		"repack":         {junk},
		"diff":           {junk, junk},
		"pull":           {junk, filepath.Join(dir, "pulled")},
		"sd":             {junk},
		"keygen":         {"--passphrase-file", filepath.Join(dir, "missing"), "-o", filepath.Join(dir, "key")},
		"sign":           {"--key", junk, junk},
		"table":          {junk},
		"texture import": {"-o", filepath.Join(dir, "t.bpx"), junk},
		"texture export": {junk},
		"blk":            {junk},
		"bo3d":           {junk},
		"serve":          {filepath.Join(dir, "missing.bpx")},
		"version":        nil, // reads no input
		"completion":     nil,
	}
	for _, c := range commands {
		args, ok := cases[c.Name]
		if !ok {
			t.Errorf("no bad-input case for %s", c.Name)
			continue
		}
		if args == nil {
			continue
		}
		r := runBPX(t, nil, append(strings.Fields(c.Name), args...)...)
		want := exitFail
		if c.Name == "diff" {
			want = exitUsage // diff(1): 1 means "different"
		}
		if r.Code != want || !strings.HasPrefix(r.Stderr, "bpx "+c.Name+": ") && c.Name != "verify" {
			t.Errorf("%s: %+v", c.Name, r)
		}
		checkOneLineError(t, r)
	}
}

// TestSingleDashLongFlags: -name works like --name, though the help and
// the README write --name.
func TestSingleDashLongFlags(t *testing.T) {
	path, _ := writeContainer(t)
	a, b := runBPX(t, nil, "info", "-json", path), runBPX(t, nil, "info", "--json", path)
	if a.Code != exitOK || a != b {
		t.Errorf("-json: %+v\n--json: %+v", a, b)
	}
}

// flagToken matches a flag written in a usage line or a description.
var flagToken = regexp.MustCompile(`(^|[\s\[(])(--?)([a-zA-Z0-9][a-zA-Z0-9-]*)`)

// TestFlagsDocumentedOneWay: every synopsis names exactly the command's
// flags, each written --name (or -x); descriptions mention flags in the same
// style.
func TestFlagsDocumentedOneWay(t *testing.T) {
	for _, c := range commands {
		fs, _ := c.flags()
		seen := map[string]bool{}
		for _, m := range flagToken.FindAllStringSubmatch(c.Usage, -1) {
			dash, name := m[2], m[3]
			if fs.Lookup(name) == nil {
				t.Errorf("%s: usage names %s%s, which is not a flag", c.Name, dash, name)
			} else if dash+name != flagName(name) {
				t.Errorf("%s: usage writes %s%s, want %s", c.Name, dash, name, flagName(name))
			}
			seen[name] = true
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !seen[f.Name] {
				t.Errorf("%s: usage %q lacks %s", c.Name, c.Usage, flagName(f.Name))
			}
			_, usage := flag.UnquoteUsage(f)
			checkFlagStyle(t, c.Name+" "+flagName(f.Name), usage)
		})
		checkFlagStyle(t, c.Name, c.Doc)
	}
}

// checkFlagStyle reports flags with a long name written with one dash.
func checkFlagStyle(t *testing.T, where, text string) {
	t.Helper()
	for _, m := range flagToken.FindAllStringSubmatch(text, -1) {
		if m[2] == "-" && len(m[3]) > 1 {
			t.Errorf("%s: writes -%s, want --%s", where, m[3], m[3])
		}
	}
}

// TestREADMECommands: the README's command table has a row for every
// command, and names only its flags, written as the help writes them.
func TestREADMECommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `bpx ([^`]*)` \\|").FindAllStringSubmatch(string(b), -1)
	documented := map[string]bool{}
	for _, row := range rows {
		synopsis := strings.ReplaceAll(row[1], `\|`, "|")
		var c *command
		for _, cand := range commands { // the longest name that matches
			if strings.HasPrefix(synopsis+" ", cand.Name+" ") && (c == nil || len(cand.Name) > len(c.Name)) {
				c = cand
			}
		}
		if c == nil {
			t.Errorf("README row for an unknown command: %s", synopsis)
			continue
		}
		documented[c.Name] = true
		fs, _ := c.flags()
		for _, m := range flagToken.FindAllStringSubmatch(synopsis, -1) {
			if f := fs.Lookup(m[3]); f == nil || m[2]+m[3] != flagName(m[3]) {
				t.Errorf("README row %q: %s%s is not a flag of bpx %s written as the help writes it", synopsis, m[2], m[3], c.Name)
			}
		}
	}
	for _, c := range commands {
		if !documented[c.Name] {
			t.Errorf("README has no row for bpx %s", c.Name)
		}
	}
}

// TestExamples: every command has an example in its help, and each
// example's command line names the command and parses with its flags.
func TestExamples(t *testing.T) {
	for _, c := range commands {
		if len(c.Examples) == 0 {
			t.Errorf("bpx %s has no example", c.Name)
		}
		for _, ex := range c.Examples {
			if ex.Comment == "" || strings.Contains(ex.Comment, "\n") {
				t.Errorf("bpx %s: example %q wants a one-line comment", c.Name, ex.Line)
			}
			if err := parseExample(c, ex.Line); err != nil {
				t.Errorf("bpx %s: example %q: %v", c.Name, ex.Line, err)
			}
		}
	}
}

// parseExample parses line, an example of c, as bpx would: it must start
// with "bpx" and c's name, use no shell syntax beyond globs, and its flags
// must be c's, written as the help writes them.
func parseExample(c *command, line string) error {
	words := strings.Fields(line)
	head := append([]string{"bpx"}, strings.Fields(c.Name)...)
	if len(words) < len(head) || strings.Join(words[:len(head)], " ") != strings.Join(head, " ") {
		return fmt.Errorf("does not start with %q", strings.Join(head, " "))
	}
	args := words[len(head):]
	for _, w := range args {
		if strings.ContainsAny(w, "|<>;&'\"$`") {
			return fmt.Errorf("shell syntax in %q", w)
		}
	}
	fs, _ := c.flags()
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	for _, w := range args {
		if m := flagToken.FindStringSubmatch(w); m != nil && m[1] == "" && m[2]+m[3] != flagName(m[3]) {
			return fmt.Errorf("writes %s, want %s", w, flagName(m[3]))
		}
	}
	return nil
}

// TestExamplesCheckFlags: parseExample fails an example with an unknown
// flag, a misspelt one or one of another command.
func TestExamplesCheckFlags(t *testing.T) {
	c := find("pack")
	for _, line := range []string{
		"bpx pack --compress xz assets",
		"bpx pack --c xz assets",
		"bpx pack -o",
		"bpx unpack -C out game.bpx",
		"bpx pack assets > out.bpx",
	} {
		if parseExample(c, line) == nil {
			t.Errorf("%q passes", line)
		}
	}
	if err := parseExample(c, "bpx pack -c zlib --section-size 4096 assets"); err != nil {
		t.Errorf("a good example fails: %v", err)
	}
}
