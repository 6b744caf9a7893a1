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
	Section    int      // the section's index
	Files      []string // the names of the objects with bytes in it, in object table order
	Incomplete bool     // Files lists only some: finding them all would take too long
	Err        error
}

// sectionErrorSteps bounds the segments sectionError walks besides one an
// object: a hostile table can make every object span every section, and
// each damaged section would then cost objects × sections.
var sectionErrorSteps = 1 << 16

func (e *SectionError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	more := ""
	if e.Incomplete {
		more = " at least"
	}
	for i, f := range e.Files {
		switch {
		case i == blameLimit:
			fmt.Fprintf(&b, " and%s %d more", more, len(e.Files)-i)
			return b.String() + ")"
		case i == 0:
			fmt.Fprintf(&b, " (section %d holds %q", e.Section, f)
		default:
			fmt.Fprintf(&b, ", %q", f)
		}
	}
	if len(e.Files) > 0 && e.Incomplete {
		b.WriteString(" and maybe more")
	}
	if len(e.Files) > 0 {
		b.WriteString(")")
	}
	return b.String()
}

func (e *SectionError) Unwrap() error { return e.Err }

// sectionError returns err, a problem of data section i, as a
// *SectionError naming the objects with bytes in section i; err as it is
// when the tables cannot say. It walks at most one segment an object plus
// sectionErrorSteps, as many as VerifySection's own pass over the objects.
func (p *Package) sectionError(i int, err error) error {
	if p.load() != nil {
		return err
	}
	se := &SectionError{Section: i, Err: err}
	steps := sectionErrorSteps
	for j := range p.objects {
		o := &p.objects[j]
		first := true
		p.walkSegments(o, func(sg segment) error {
			switch {
			case sg.sec == i:
				se.Files = append(se.Files, o.Name)
				return errStopWalk
			case sg.sec > i:
				return errStopWalk
			case !first && steps == 0:
				se.Incomplete = true
				return errStopWalk
			case !first:
				steps--
			}
			first = false
			return nil
		})
	}
	return se
}
