package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completionScript runs "bpx completion SHELL" and writes the script to a
// file, whose path it returns with the script.
func completionScript(t *testing.T, shell string) (string, string) {
	t.Helper()
	r := runBPX(t, nil, "completion", shell)
	if r.Code != exitOK || r.Stderr != "" || r.Stdout == "" {
		t.Fatalf("completion %s: %+v", shell, r)
	}
	path := filepath.Join(t.TempDir(), "bpx."+shell)
	if err := os.WriteFile(path, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, r.Stdout
}

// TestCompletionScriptsParse: each script is valid for its shell (checked
// with the shell's -n when it is installed) and names every command and
// every flag.
func TestCompletionScriptsParse(t *testing.T) {
	for _, shell := range shells {
		t.Run(shell, func(t *testing.T) {
			path, script := completionScript(t, shell)
			for _, c := range commands {
				for _, word := range strings.Fields(c.Name) {
					if !strings.Contains(script, word) {
						t.Errorf("no command %q", word)
					}
				}
				fs, _ := c.flags()
				fs.VisitAll(func(f *flag.Flag) {
					name := flagName(f.Name)
					if shell == "fish" { // complete -s c, -l json
						name = map[bool]string{true: "-s ", false: "-l "}[len(f.Name) == 1] + f.Name
					}
					if !strings.Contains(script, name) {
						t.Errorf("%s: no flag %s", c.Name, name)
					}
				})
			}
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed: syntax not checked", shell)
			}
			if out, err := exec.Command(bin, "-n", path).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
	if r := runBPX(t, nil, "completion", "csh"); r.Code != exitUsage || !strings.Contains(r.Stderr, `unknown shell "csh"`) {
		t.Errorf("csh: %+v", r)
	}
}

// bashComplete runs the bash script's completion function on the command
// line words (the last one being completed) and returns its candidates.
func bashComplete(t *testing.T, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, shQuote(w))
	}
	prog := "source " + shQuote(script) + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
		"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_bpx\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("bash: %v %s", err, errb.String())
	}
	return strings.Fields(out.String())
}

// TestBashCompletion runs the bash completion: commands, subcommands,
// every command's flags, enumerated values and file fallbacks.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script, _ := completionScript(t, "bash")
	check := func(want []string, words ...string) {
		t.Helper()
		got := bashComplete(t, script, words...)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: got %v, lacks %q", words, got, w)
			}
		}
		if len(want) == 0 && len(got) != 0 {
			t.Errorf("%q: got %v, want none (files)", words, got)
		}
	}
	check([]string{"info", "texture", "completion", "help", "version"}, "bpx", "")
	check([]string{"texture"}, "bpx", "tex")
	check([]string{"import", "export"}, "bpx", "texture", "")
	check([]string{"xz", "zlib", "none"}, "bpx", "pack", "-c", "")
	check([]string{"text", "json", "typed-json"}, "bpx", "blk", "--format", "")
	check([]string{"bbf", "fat", "fat-zst", "slim", "slim-zst", "slim-zst-dict"}, "bpx", "blk", "--kind", "")
	check([]string{"slim", "slim-zst", "slim-zst-dict"}, "bpx", "blk", "--kind", "sl")
	check([]string{"bash", "zsh", "fish"}, "bpx", "completion", "")
	check([]string{"unpack", "texture"}, "bpx", "help", "")
	check([]string{"import"}, "bpx", "help", "texture", "")
	check(nil, "bpx", "pack", "-o", "")   // a file
	check(nil, "bpx", "info", "")         // a file
	check(nil, "bpx", "unpack", "-C", "") // a directory, by file completion
	for _, c := range commands {
		fs, _ := c.flags()
		var want []string
		fs.VisitAll(func(f *flag.Flag) { want = append(want, flagName(f.Name)) })
		if len(want) > 0 {
			check(want, append(append([]string{"bpx"}, strings.Fields(c.Name)...), "-")...)
		}
	}
}
