package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
)

// verifyFlags are the flags of "bpx verify".
type verifyFlags struct{ quiet bool }

func setupVerify(fs *flag.FlagSet) func(*env, []string) int {
	var f verifyFlags
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	return f.run
}

func (f *verifyFlags) run(e *env, pos []string) int {
	if len(pos) == 0 {
		return e.usageError("want at least one FILE")
	}
	failed := false
	for _, name := range pos {
		problems, sections := verifyFile(e, name, f.quiet)
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
		} else {
			fmt.Fprintf(e.Stdout, "%s: ok\n", shown)
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// verifyFile returns every problem found in the named file, and its
// number of sections: a file that does not open is one problem; otherwise
// each failing section is one.
func verifyFile(e *env, name string, quiet bool) ([]error, int) {
	r, err := openContainer(name)
	if err != nil {
		return []error{err}, 0
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
	return problems, len(r.Sections)
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
