package pack

import (
	"fmt"
	"strings"
)

// A SectionError is a problem of a data section that VerifySection (so
// VerifyAll) found, with the files whose bytes lie in the section: those
// a reader may find damaged, and an installer may fetch again. It wraps
// the problem (errors.Is and errors.As see through it).
type SectionError struct {
	Section int      // the section's index
	Files   []string // the names of the objects with bytes in it, in object table order
	Err     error
}

func (e *SectionError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for i, f := range e.Files {
		switch {
		case i == blameLimit:
			fmt.Fprintf(&b, " and %d more", len(e.Files)-i)
			return b.String() + ")"
		case i == 0:
			fmt.Fprintf(&b, " (section %d holds %q", e.Section, f)
		default:
			fmt.Fprintf(&b, ", %q", f)
		}
	}
	if len(e.Files) > 0 {
		b.WriteString(")")
	}
	return b.String()
}

func (e *SectionError) Unwrap() error { return e.Err }

// sectionError returns err, a problem of data section i, as a
// *SectionError naming the objects with bytes in section i; err as it is
// when the tables cannot say.
func (p *Package) sectionError(i int, err error) error {
	if p.load() != nil {
		return err
	}
	var files []string
	for j := range p.objects {
		o := &p.objects[j]
		p.walkSegments(o, func(sg segment) error {
			if sg.sec == i {
				files = append(files, o.Name)
				return errStopWalk
			}
			return nil
		})
	}
	return &SectionError{Section: i, Files: files, Err: err}
}
