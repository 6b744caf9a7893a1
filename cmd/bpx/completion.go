package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

func init() { find("completion").Setup = setupCompletion }

func setupCompletion(*flag.FlagSet) func(*env, []string) int {
	return func(e *env, pos []string) int {
		if len(pos) != 1 {
			return e.usageError("want one shell: bash, zsh or fish")
		}
		spec := completionSpec()
		switch pos[0] {
		case "bash":
			spec.bash(e.Stdout)
		case "zsh":
			spec.zsh(e.Stdout)
		case "fish":
			spec.fish(e.Stdout)
		default:
			return e.usageError("unknown shell %q: want bash, zsh or fish", pos[0])
		}
		return exitOK
	}
}

// flagEnums are the values of flags, keyed "command flag", whose value
// name is a word rather than an "a|b|c" list, to keep their help short.
var flagEnums = map[string][]string{
	"blk kind": slices.Sorted(maps.Keys(blkKinds)),
}

// shells are the shells "bpx completion" writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

// compSpec is what a completion script completes, taken from the commands
// table.
type compSpec struct {
	top  []compWord // the words after "bpx": commands, groups, help
	cmds []compCmd
}

// compWord is a word to complete with its description.
type compWord struct{ word, desc string }

// compCmd is one command: its words after "bpx" ("texture import"), its
// flags and what its positional arguments are (nil: files).
type compCmd struct {
	name  string
	flags []compFlag
	words []string
}

// compFlag is one flag of a command.
type compFlag struct {
	name   string   // as the help writes it: --json, -c
	desc   string   // the start of its usage text
	value  string   // the value's name, "" for a boolean flag
	enum   []string // the values a "a|b|c" value name lists, else nil (files)
	repeat bool     // may be given more than once
}

// completionSpec builds the spec from the commands table: every command
// with its flags, groups with their subcommands, and "help", whose
// argument is a command.
func completionSpec() *compSpec {
	s := &compSpec{}
	var names []string
	for _, c := range commands {
		first, _, sub := strings.Cut(c.Name, " ")
		if !slices.Contains(names, first) {
			names = append(names, first)
			desc := c.Summary
			if sub {
				desc = "subcommands: " + strings.Join(subcommandWords(first), ", ")
			}
			s.top = append(s.top, compWord{first, desc})
		}
		cc := compCmd{name: c.Name}
		switch c.Name {
		case "completion":
			cc.words = shells
		}
		fs, _ := c.flags()
		fs.VisitAll(func(f *flag.Flag) {
			value, usage := flag.UnquoteUsage(f)
			cf := compFlag{name: flagName(f.Name), desc: shortDesc(usage), value: value}
			if strings.Contains(value, "|") {
				cf.enum = strings.Split(value, "|")
			}
			if e, ok := flagEnums[c.Name+" "+f.Name]; ok {
				cf.enum = e
			}
			_, cf.repeat = f.Value.(*layerList)
			cc.flags = append(cc.flags, cf)
		})
		s.cmds = append(s.cmds, cc)
	}
	s.top = append(s.top, compWord{"help", "show the commands, or a command's usage, flags and examples"})
	s.cmds = append(s.cmds, compCmd{name: "help", words: names})
	return s
}

// subcommandWords returns the second words of the commands of group name.
func subcommandWords(name string) []string {
	var words []string
	for _, c := range subcommands(name) {
		words = append(words, strings.TrimPrefix(c.Name, name+" "))
	}
	return words
}

// shortDesc is the usage text up to its first ";" or " (": one short
// clause that fits a completion menu.
func shortDesc(usage string) string {
	for _, sep := range []string{"; ", " ("} {
		if i := strings.Index(usage, sep); i > 0 {
			usage = usage[:i]
		}
	}
	return usage
}

// groups returns the names of the commands that have subcommands.
func (s *compSpec) groups() []string {
	var gs []string
	for _, w := range s.top {
		if len(subcommands(w.word)) > 0 {
			gs = append(gs, w.word)
		}
	}
	return gs
}

// topWords returns the words of s.top.
func (s *compSpec) topWords() []string {
	var ws []string
	for _, w := range s.top {
		ws = append(ws, w.word)
	}
	return ws
}

// bash writes a bash script: "source <(bpx completion bash)".
func (s *compSpec) bash(w io.Writer) {
	fmt.Fprintf(w, `# bash completion for bpx, written by "bpx completion bash".
# Load it with: source <(bpx completion bash)
_bpx() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W %s -- "$cur"))
		return
	fi
	local cmd=${COMP_WORDS[1]}
	case $cmd in
`, shQuote(strings.Join(append(s.topWords(), "--version", "--help"), " ")))
	for _, g := range s.groups() {
		fmt.Fprintf(w, "\t%s)\n\t\tif ((COMP_CWORD == 2)); then\n\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tcmd=\"$cmd ${COMP_WORDS[2]}\"\n\t\t;;\n",
			g, shQuote(strings.Join(subcommandWords(g), " ")))
	}
	fmt.Fprintf(w, "\tesac\n\tlocal flags=\"\" words=\"\"\n\tcase $cmd in\n")
	for _, c := range s.cmds {
		var names []string
		for _, f := range c.flags {
			names = append(names, f.name)
		}
		fmt.Fprintf(w, "\t%s)\n\t\tflags=%s\n", shQuote(c.name), shQuote(strings.Join(names, " ")))
		if c.words != nil {
			fmt.Fprintf(w, "\t\twords=%s\n", shQuote(strings.Join(c.words, " ")))
		}
		if c.name == "help" {
			fmt.Fprintf(w, "\t\tif ((COMP_CWORD == 3)); then\n\t\t\twords=\"\"\n\t\t\tcase $prev in\n")
			for _, g := range s.groups() {
				fmt.Fprintf(w, "\t\t\t%s) words=%s ;;\n", g, shQuote(strings.Join(subcommandWords(g), " ")))
			}
			fmt.Fprintf(w, "\t\t\tesac\n\t\tfi\n")
		}
		for _, f := range c.flags {
			switch {
			case f.enum != nil:
				fmt.Fprintf(w, "\t\tif [[ $prev == %s ]]; then\n\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n",
					f.name, shQuote(strings.Join(f.enum, " ")))
			case f.value != "":
				// Files, by the default completion.
				fmt.Fprintf(w, "\t\t[[ $prev == %s ]] && return\n", f.name)
			}
		}
		fmt.Fprintf(w, "\t\t;;\n")
	}
	fmt.Fprintf(w, `	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [[ -n $words ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
	# Anything else: files, by the default completion.
}
complete -o default -F _bpx bpx
`)
}

// zsh writes a zsh script: "source <(bpx completion zsh)", or saved as
// _bpx in a directory of $fpath.
func (s *compSpec) zsh(w io.Writer) {
	fmt.Fprintf(w, `#compdef bpx
# zsh completion for bpx, written by "bpx completion zsh".
# Load it with: source <(bpx completion zsh), or save it as _bpx in a
# directory of $fpath.
_bpx() {
	local -a cmds subs
	cmds=(
`)
	for _, t := range s.top {
		fmt.Fprintf(w, "\t\t%s\n", shQuote(zshDescribe(t.word, t.desc)))
	}
	fmt.Fprintf(w, "\t)\n\tif ((CURRENT == 2)); then\n\t\t_describe -t commands 'bpx command' cmds\n\t\treturn\n\tfi\n\tlocal cmd=${words[2]}\n\tcase $cmd in\n")
	for _, g := range s.groups() {
		fmt.Fprintf(w, "\t%s)\n\t\tsubs=(\n", g)
		for _, c := range subcommands(g) {
			fmt.Fprintf(w, "\t\t\t%s\n", shQuote(zshDescribe(strings.TrimPrefix(c.Name, g+" "), c.Summary)))
		}
		fmt.Fprintf(w, "\t\t)\n\t\tif ((CURRENT == 3)); then\n\t\t\t_describe -t commands 'bpx %s subcommand' subs\n\t\t\treturn\n\t\tfi\n\t\tcmd=\"$cmd ${words[3]}\"\n\t\tshift words\n\t\t((CURRENT--))\n\t\t;;\n", g)
	}
	fmt.Fprintf(w, "\tesac\n\tshift words\n\t((CURRENT--))\n\tcase $cmd in\n")
	for _, c := range s.cmds {
		fmt.Fprintf(w, "\t%s)\n\t\t_arguments", shQuote(c.name))
		for _, f := range c.flags {
			spec := f.name + "[" + zshEscape(f.desc) + "]"
			if f.repeat {
				spec = "*" + spec
			}
			switch {
			case f.enum != nil:
				spec += ":" + zshEscape(f.value) + ":(" + strings.Join(f.enum, " ") + ")"
			case f.value != "":
				spec += ":" + zshEscape(f.value) + ":_files"
			}
			fmt.Fprintf(w, " \\\n\t\t\t%s", shQuote(spec))
		}
		switch {
		case c.name == "help":
			fmt.Fprintf(w, " \\\n\t\t\t'1:command:_describe -t commands \"bpx command\" cmds'")
		case c.words != nil:
			fmt.Fprintf(w, " \\\n\t\t\t%s", shQuote("1:"+c.name+":("+strings.Join(c.words, " ")+")"))
		default:
			fmt.Fprintf(w, " \\\n\t\t\t'*:file:_files'")
		}
		fmt.Fprintf(w, "\n\t\t;;\n")
	}
	fmt.Fprintf(w, `	esac
}
if [[ $funcstack[1] == _bpx ]]; then
	_bpx "$@"
else
	compdef _bpx bpx
fi
`)
}

// fish writes a fish script: "bpx completion fish | source", or saved in
// ~/.config/fish/completions/bpx.fish.
func (s *compSpec) fish(w io.Writer) {
	top := strings.Join(s.topWords(), " ")
	fmt.Fprintf(w, "# fish completion for bpx, written by \"bpx completion fish\".\n# Load it with: bpx completion fish | source\n")
	none := shQuote("not __fish_seen_subcommand_from " + top)
	for _, t := range s.top {
		fmt.Fprintf(w, "complete -c bpx -f -n %s -a %s -d %s\n", none, t.word, fishQuote(t.desc))
	}
	fmt.Fprintf(w, "complete -c bpx -f -n %s -l version -d 'print the version'\n", none)
	for _, g := range s.groups() {
		subs := subcommands(g)
		cond := shQuote("__fish_seen_subcommand_from " + g + "; and not __fish_seen_subcommand_from " + strings.Join(subcommandWords(g), " "))
		for _, c := range subs {
			fmt.Fprintf(w, "complete -c bpx -f -n %s -a %s -d %s\n", cond, strings.TrimPrefix(c.Name, g+" "), fishQuote(c.Summary))
		}
	}
	for _, c := range s.cmds {
		cond := ""
		for i, word := range strings.Fields(c.name) {
			if i > 0 {
				cond += "; and "
			}
			cond += "__fish_seen_subcommand_from " + word
		}
		cond = shQuote(cond)
		if c.words != nil {
			fmt.Fprintf(w, "complete -c bpx -f -n %s -a %s\n", cond, shQuote(strings.Join(c.words, " ")))
		}
		for _, f := range c.flags {
			opt := "-l " + strings.TrimPrefix(f.name, "--")
			if !strings.HasPrefix(f.name, "--") {
				opt = "-s " + strings.TrimPrefix(f.name, "-")
			}
			switch {
			case f.enum != nil:
				opt += " -x -a " + shQuote(strings.Join(f.enum, " "))
			case f.value != "":
				opt += " -r -F"
			}
			fmt.Fprintf(w, "complete -c bpx -n %s %s -d %s\n", cond, opt, fishQuote(f.desc))
		}
	}
}

// shQuote quotes s in single quotes for bash and zsh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote quotes s in single quotes for fish, which escapes \ and '
// inside them.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// zshEscape escapes what _arguments and _describe give a meaning to.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(s)
}

// zshDescribe is a "word:description" entry of _describe.
func zshDescribe(word, desc string) string { return zshEscape(word) + ":" + zshEscape(desc) }
