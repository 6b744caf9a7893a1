package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
)

// signFlags are the flags of "bpx sign".
type signFlags struct {
	keyFlags
	out     string
	name    string
	version uint64
	expires string
}

func setupSign(fs *flag.FlagSet) func(*env, []string) int {
	var f signFlags
	f.keyFlags.define(fs, "sign with the secret key `SECRET` (bpx keygen's, or an Ed25519 key of ssh-keygen such as ~/.ssh/id_ed25519)")
	fs.StringVar(&f.out, "o", "", "write the signed file to `OUT` instead of replacing FILE (both atomically)")
	fs.StringVar(&f.name, "name", "", "state that the file is the package `NAME` (readers require it with --name; a signature of another name does not verify for them)")
	fs.Uint64Var(&f.version, "version", 0, "state that the file is release `N` (readers refuse an older one with --min-version)")
	fs.StringVar(&f.expires, "expires", "", "state that readers refuse the file after `DATE` (2027-01-31 or 2027-01-31T12:00:00Z)")
	return f.run
}

func (f *signFlags) run(e *env, pos []string) int {
	if len(pos) != 1 || f.key == "" {
		return e.usageError("want --key SECRET and one FILE")
	}
	st := sign.Statement{Name: f.name, Version: f.version}
	if f.expires != "" {
		t, err := parseDate(f.expires)
		if err != nil {
			return e.usageError("--expires: %v", err)
		}
		st.Expires = t
	}
	s, err := f.signer(e)
	if err != nil {
		return e.fail(err)
	}
	name := pos[0]
	out := f.out
	if out == "" {
		// In place: the file a symbolic link points to, as the edits do.
		name = editTarget(name)
		out = name
	}
	// A signature vouches for the file: sign none that bpx verify rejects
	// (a damaged one, or one whose accelerators lie about its content).
	if problems, _, _ := verifyFile(e, name, false, nil); len(problems) > 0 {
		printProblems(e, name, problems)
		return e.fail(fmt.Errorf("%s: not signed: bpx verify finds %s in it (above)", name, plural(len(problems), "problem")))
	}
	if err := signTo(name, out, st, s.keys); err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.Stdout, "%s: signed by %s\n", termsafe.Name(out), s.name)
	if !st.IsZero() {
		fmt.Fprintf(e.Stdout, "%s: states %s\n", termsafe.Name(out), termsafe.Message(st.String()))
	}
	warnSections(e, out)
	return exitOK
}

// warnSections warns when the file name has more sections than the
// reference SDK reads, as bpx verify does: signing adds one.
func warnSections(e *env, name string) {
	rc, err := bpx.OpenReader(name)
	if err != nil {
		return
	}
	defer rc.Close()
	if n := len(rc.Sections); n > bpx.ReferenceMaxSections {
		fmt.Fprintf(e.Stderr, "%s: warning: %d sections with the signature: the reference SDK reads at most %d through a buffered reader (bpx repack --max-sections %d, then sign again, makes room)\n",
			termsafe.Name(name), n, bpx.ReferenceMaxSections, bpx.ReferenceMaxSections-1)
	}
}

// signTo writes the BPX file name signed by keys to out, which may be
// name, atomically: sign.SignFile, but that SIGINT and SIGTERM stop it,
// leaving out as it was (see saveFile).
func signTo(name, out string, st sign.Statement, keys []*sign.PrivateKey) error {
	src, err := os.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	return saveFile(out, func(_ context.Context, w io.Writer) error {
		if err := st.Sign(w, src, fi.Size(), keys...); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return src.Close() // before the rename, for Windows
	})
}

// parseDate parses a date of --expires: RFC 3339, or a day (midnight
// UTC).
func parseDate(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date such as 2027-01-31 or 2027-01-31T12:00:00Z", v)
	}
	return t, nil
}
