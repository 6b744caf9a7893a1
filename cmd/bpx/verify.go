package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// verifyFlags are the flags of "bpx verify".
type verifyFlags struct {
	quiet   bool
	trusted trustedFlag
}

func setupVerify(fs *flag.FlagSet) func(*env, []string) int {
	var f verifyFlags
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	f.trusted.define(fs, "a FILE")
	return f.run
}

func (f *verifyFlags) run(e *env, pos []string) int {
	if len(pos) == 0 {
		return e.usageError("want at least one FILE")
	}
	ring, err := f.trusted.ring()
	if err != nil {
		return e.fail(err)
	}
	failed := false
	for _, name := range pos {
		problems, sections, v := verifyFile(e, name, f.quiet, ring)
		shown := termsafe.Name(name)
		printProblems(e, name, problems)
		if sections > bpx.ReferenceMaxSections {
			fmt.Fprintf(e.Stderr, "%s: warning: %d sections: the reference SDK reads at most %d through a buffered reader (bpx repack joins sections to fit)\n", shown, sections, bpx.ReferenceMaxSections)
		}
		if len(problems) > 0 {
			failed = true
			fmt.Fprintf(e.Stdout, "%s: FAILED (%s)\n", shown, plural(len(problems), "problem"))
		} else if v != nil {
			stated := ""
			if st := v.Statement(); !st.IsZero() {
				stated = ", stating " + termsafe.Message(st.String())
			}
			fmt.Fprintf(e.Stdout, "%s: ok, signed by %s%s\n", shown, signerNames(v.Signers()), stated)
		} else {
			fmt.Fprintf(e.Stdout, "%s: ok\n", shown)
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// printProblems prints the problems verifyFile found in the file name,
// one a line, each after the file's name.
func printProblems(e *env, name string, problems []error) {
	for _, p := range problems {
		var pe *fs.PathError
		if errors.As(p, &pe) && pe.Path == name {
			p = pe.Err // the line names the file already
		}
		fmt.Fprintf(e.Stderr, "%s: %s\n", termsafe.Name(name), termsafe.Message(p.Error()))
	}
}

// verifyFile returns every problem found in the named file, its number
// of sections and, with trusted keys, the file as verified (who signed
// it, what they state): a file that
// does not open, or is not signed by a trusted key, is one problem;
// otherwise each failing section is one, and so are bytes that do not
// match the signed manifest.
func verifyFile(e *env, name string, quiet bool, trusted *sign.KeyRing) ([]error, int, *sign.Verified) {
	var r *container
	var v *sign.Verified
	var err error
	if trusted == nil {
		r, err = openContainer(name)
	} else {
		r, v, err = openSigned(name, trusted)
	}
	if err != nil {
		return []error{err}, 0, nil
	}
	defer r.Close()
	var total int64
	for _, s := range r.Sections {
		total += int64(s.StoredSize())
	}
	bar := newProgress(e, quiet, total, "verifying")
	defer bar.Done()
	var problems []error
	// A package's sections are checked by the package, which also checks
	// their block maps and the digests of the objects in them (a
	// structural problem that stops it opening is reported below).
	var pkg *pack.Package
	if r.Header.Type == bpx.TypePackage {
		pkg, _ = pack.New(r.Reader)
	}
	// One line a problem: a damaged object table is found by its own
	// check and by that of every section whose objects it lists.
	seen := map[string]bool{}
	for _, s := range r.Sections {
		var err error
		if pkg != nil {
			err = pkg.VerifySection(s.Index)
		} else {
			err = s.Verify()
		}
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			problems = append(problems, err)
		}
		bar.Add(int64(s.StoredSize()))
	}
	if check := typeCheckers[r.Header.Type]; check != nil && len(problems) == 0 {
		if err := check(r.Reader); err != nil {
			problems = append(problems, err)
		}
	}
	if v == nil {
		return problems, len(r.Sections), nil
	}
	// Every byte: sign.Open checked the header and the table, and the
	// sections were read through v, which checked the chunks they cover;
	// what lies outside them is read through v now. (v.VerifyAll would
	// read the whole file a second time, over HTTP too.)
	if len(problems) == 0 {
		if err := v.VerifyGaps(r.Reader); err != nil {
			problems = append(problems, err)
		}
	}
	return problems, len(r.Sections), v
}

// plural returns "1 problem", "2 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
