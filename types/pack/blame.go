package pack

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobpx/bpx/sign"
)

// blameLimit is how many objects a blamed error names.
const blameLimit = 4

// blame returns err, when it is a signed chunk that does not match
// (sign.ChunkError), with the objects whose stored bytes lie in that
// chunk: the changed byte is in one of them, and not necessarily in the
// object that was being read (a chunk of 64 KiB holds the end of one
// file and the start of the next). Other errors are returned as they are.
func (p *Package) blame(err error) error {
	var ce *sign.ChunkError
	if !errors.As(err, &ce) {
		return err
	}
	if p.load() != nil {
		return err
	}
	var names []string
	more := 0
	for i := range p.objects {
		o := &p.objects[i]
		hit := false
		p.walkSegments(o, func(sg segment) error {
			s := p.Reader.Sections[sg.sec]
			lo, hi := int64(s.Pointer), int64(s.Pointer)+int64(s.StoredSize())
			if !s.Compressed() {
				lo, hi = lo+int64(sg.off), lo+int64(sg.off+sg.n)
			}
			if lo < ce.End && ce.Off < hi {
				hit = true
				return errStopWalk
			}
			return nil
		})
		if hit {
			if len(names) < blameLimit {
				names = append(names, fmt.Sprintf("%q", o.Name))
			} else {
				more++
			}
		}
	}
	if len(names) == 0 {
		return err
	}
	list := strings.Join(names, ", ")
	if more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	if len(names) == 1 {
		return &blameError{err: err, what: "the changed bytes are in " + list}
	}
	return &blameError{err: err, what: "the changed bytes are in one of " + list}
}

// errStopWalk stops walkSegments early.
var errStopWalk = errors.New("stop")

// blameError is an error with the objects it may concern.
type blameError struct {
	err  error
	what string
}

func (e *blameError) Error() string { return e.err.Error() + " (" + e.what + ")" }
func (e *blameError) Unwrap() error { return e.err }
