// Command bpx inspects, verifies, packs and unpacks BPX files and converts
// neighbouring asset formats (BLK, BO3D) to BPX.
//
// Usage:
//
//	bpx <command> [flags] [args]
//
// "bpx help" lists the commands; "bpx help <command>", or "bpx <command>
// --help", prints a command's usage, what it does, each of its flags
// with its default, and examples. "bpx version" (or "bpx --version") tells
// which build it is. Flags are written --name, or -x for one-letter flags
// (-name is accepted too), and may come before, between or after the
// arguments; "--" ends them. Data goes to standard output, diagnostics to
// standard error. The exit status is 0 on success, 1 when a check fails or
// the input is bad, and 2 on bad usage. A command that writes files and is
// interrupted by SIGINT or SIGTERM removes its temporary files, leaves its
// output as it was and exits with 130 or 143 (interrupt.go).
//
// Commands that sign (--key SECRET: sign, pack, the edits, diff --patch)
// take an OpenSSH Ed25519 secret key (keys.go). The passphrase of an
// encrypted one comes from --passphrase-file, else $BPX_PASSPHRASE, else
// a prompt without echo when standard input is a terminal; bpx never
// prompts otherwise, so that scripts fail with a message instead of
// waiting. --trusted KEYS (verify, cat, ls, unpack) names a file of the
// public keys trusted, one a line.
//
// Names that bpx did not choose (object names, file names, paths from the
// command line or a URL) are printed for a terminal by the rules of package
// cmd/internal/termsafe: a name is printed as it is when it is valid UTF-8,
// all printable and does not start with a double quote, else Go-quoted
// whole ("\x1b]0;x\a", "a\nb", "\u202e", "\xff"); in a diagnostic each
// character that is not printable is replaced by its Go escape. --json
// output keeps names exact, and so does -0 (ls, diff) for xargs -0.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gobpx/bpx/cmd/internal/termsafe"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // failed check, bad input, I/O error
	exitUsage = 2 // bad command line
	// 128 + the signal's number: interrupted (see interrupted.status)
)

// env is what a command may touch: its streams, whether stderr is a
// terminal (for progress bars) and the command running, for its messages.
type env struct {
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	Terminal bool // stderr is an interactive terminal
	cmd      *command
}

// errUsage marks an error as a usage error (exit status 2).
var errUsage = errors.New("usage")

// fail prints err as one line prefixed with the command name, with the
// characters that are not printable escaped (termsafe.Message: errors embed
// names raw), and returns the exit status it deserves.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.Stderr, "bpx %s: %s\n", e.cmd.Name, termsafe.Message(err.Error()))
	if status, ok := interruptStatus(err); ok {
		return status
	}
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFail
}

// usageError prints a usage problem, escaped as fail escapes errors, and
// the command's usage, and returns exit status 2.
func (e *env) usageError(format string, args ...any) int {
	fmt.Fprintf(e.Stderr, "bpx %s: %s\n", e.cmd.Name, termsafe.Message(fmt.Sprintf(format, args...)))
	e.cmd.printUsage(e.Stderr)
	fmt.Fprintf(e.Stderr, "Run 'bpx help %s' for its flags.\n", e.cmd.Name)
	return exitUsage
}

// tuneMemory is set by main: commands then set up the garbage collector as
// their Memory field says. Tests that call run leave it off, so that one
// command's setting does not carry over to the next test.
var tuneMemory bool

func main() {
	tuneMemory = true
	stop := startCPUProfile(os.Stderr)
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs bpx with the command-line arguments args (without the program
// name) and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if f, ok := stderr.(*os.File); ok {
		e.Terminal = isTerminal(f)
	}
	if len(args) == 0 {
		printCommands(e.Stderr)
		return exitUsage
	}
	if isHelp(args[0]) {
		return help(e, args[1:])
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	c, rest, status := lookup(e, args)
	if c == nil {
		return status
	}
	return c.run(e, rest)
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
