package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
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
		problems, sections, signers := verifyFile(e, name, f.quiet, ring)
		shown := termsafe.Name(name)
		for _, p := range problems {
			fmt.Fprintf(e.Stderr, "%s: %s\n", shown, termsafe.Message(p.Error()))
		}
		if sections > bpx.ReferenceMaxSections {
			fmt.Fprintf(e.Stderr, "%s: warning: %d sections: the reference SDK reads at most %d through a buffered reader (bpx repack joins sections to fit)\n", shown, sections, bpx.ReferenceMaxSections)
		}
		if len(problems) > 0 {
			failed = true
			fmt.Fprintf(e.Stdout, "%s: FAILED (%d problems)\n", shown, len(problems))
		} else if ring != nil {
			fmt.Fprintf(e.Stdout, "%s: ok, signed by %s\n", shown, signerNames(signers))
		} else {
			fmt.Fprintf(e.Stdout, "%s: ok\n", shown)
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// verifyFile returns every problem found in the named file, its number
// of sections and, with trusted keys, those that signed it: a file that
// does not open, or is not signed by a trusted key, is one problem;
// otherwise each failing section is one, and so are bytes that do not
// match the signed manifest.
func verifyFile(e *env, name string, quiet bool, trusted *sign.KeyRing) ([]error, int, []sign.PublicKey) {
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
	for _, s := range r.Sections {
		if err := verifySection(s); err != nil {
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
	// Every byte, those between sections included: after the sections,
	// whose reads checked the chunks they cover.
	if err := v.VerifyAll(); err != nil && len(problems) == 0 {
		problems = append(problems, err)
	}
	return problems, len(r.Sections), v.Signers()
}

func verifySection(s *bpx.Section) error {
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}
