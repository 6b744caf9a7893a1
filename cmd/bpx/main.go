// Command bpx inspects, verifies, packs and unpacks BPX files and converts
// neighbouring asset formats (BLK, BO3D) to BPX.
//
// Usage:
//
//	bpx <command> [flags] [args]
//
// Run "bpx help" for the list of commands. Data goes to standard output,
// diagnostics to standard error. The exit status is 0 on success, 1 when a
// check fails or the input is bad, and 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // failed check, bad input, I/O error
	exitUsage = 2 // bad command line
)

// env is what a subcommand may touch: its streams and whether stderr is a
// terminal (for progress bars).
type env struct {
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Terminal bool // stderr is an interactive terminal
}

// command is one subcommand. Each lives in its own file and registers itself
// from an init function.
type command struct {
	Name    string
	Summary string // one line for "bpx help"
	Usage   string // the argument synopsis, e.g. "[--json] FILE"
	// Run executes the command with the arguments after its name and
	// returns the exit status.
	Run func(e *env, args []string) int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.Name]; dup {
		panic("bpx: duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// errUsage marks an error as a usage error (exit status 2).
var errUsage = errors.New("usage")

// newFlagSet returns a FlagSet for c whose usage message goes to e.Stderr.
func (c *command) newFlagSet(e *env) *flag.FlagSet {
	fs := flag.NewFlagSet("bpx "+c.Name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.Stderr, "usage: bpx %s %s\n", c.Name, c.Usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with fs; it returns (status, false) when the command
// must stop (bad flags: 2, -h: 0).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// fail prints err as one line prefixed with the command name and returns the
// exit status it deserves.
func (c *command) fail(e *env, err error) int {
	fmt.Fprintf(e.Stderr, "bpx %s: %v\n", c.Name, err)
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFail
}

// usageError prints a usage problem and returns exit status 2.
func (c *command) usageError(e *env, format string, args ...any) int {
	fmt.Fprintf(e.Stderr, "bpx %s: %s\nusage: bpx %s %s\n", c.Name, fmt.Sprintf(format, args...), c.Name, c.Usage)
	return exitUsage
}

func main() {
	e := &env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Terminal: isTerminal(os.Stderr)}
	stop := startCPUProfile(e)
	code := run(e, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		printHelp(e.Stderr)
		return exitUsage
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintf(e.Stdout, "usage: bpx %s %s\n\n%s\n", c.Name, c.Usage, c.Summary)
				return exitOK
			}
		}
		printHelp(e.Stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.Stderr, "bpx: unknown command %q (run 'bpx help')\n", name)
		return exitUsage
	}
	return c.Run(e, args[1:])
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: bpx <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nRun 'bpx help <command>' for a command's flags.")
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
