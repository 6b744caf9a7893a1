package bpx_test

import (
	"errors"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/bpxerr"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// The root package's sentinels are bpxerr's, so errors of the packages
// that do not import the container still match bpx.ErrFormat.
func TestSentinelsShared(t *testing.T) {
	pairs := []struct{ root, leaf error }{
		{bpx.ErrFormat, bpxerr.ErrFormat},
		{bpx.ErrChecksum, bpxerr.ErrChecksum},
		{bpx.ErrUnsupported, bpxerr.ErrUnsupported},
		{bpx.ErrTooLarge, bpxerr.ErrTooLarge},
	}
	for _, p := range pairs {
		if p.root != p.leaf {
			t.Errorf("bpx sentinel %q is not bpxerr's", p.root)
		}
	}
	_, err := sd.Decode([]byte{0x01})
	if !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("sd.Decode of a truncated object: %v, want a bpx.ErrFormat", err)
	}
	_, err = bpxstrings.NewTable([]byte("abc")).Get(0)
	if !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("strings Get of an unterminated string: %v, want a bpx.ErrFormat", err)
	}
	if (&bpx.FormatError{}).Is(bpxerr.ErrFormat) != true {
		t.Error("*bpx.FormatError does not match bpxerr.ErrFormat")
	}
}
