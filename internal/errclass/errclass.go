// Package errclass makes the sentinel errors of the format packages that
// also match one of the bpx sentinels (bpx.ErrFormat, bpx.ErrTooLarge,
// bpx.ErrUnsupported) with errors.Is, so that a package can keep its own
// sentinels while every error it returns for bad input is classified the
// way the module promises.
package errclass

// New returns an error with the message msg that matches itself and class
// with errors.Is. Like errors.New, each call returns a distinct error.
func New(msg string, class error) error {
	return &sentinel{msg: msg, class: class}
}

type sentinel struct {
	msg   string
	class error
}

func (e *sentinel) Error() string { return e.msg }

// Is reports whether target is the class of e.
func (e *sentinel) Is(target error) bool { return target == e.class }
