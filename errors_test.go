package bpx_test

import (
	"bytes"
	"errors"
	"strings"
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

// TestBadMagicNotSignature: issue 31 item 6. A file that is not BPX is
// refused for its magic, in words that cannot be read as a failed
// cryptographic signature (bpx.ErrSignature).
func TestBadMagicNotSignature(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	_, err := bpx.NewReader(bytes.NewReader(png), int64(len(png)))
	if !errors.Is(err, bpx.ErrFormat) || errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("%v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "bad magic") || strings.Contains(msg, "signature") {
		t.Fatalf("message %q", msg)
	}
	if string(bpx.Magic[:]) != "BPX" || bpx.Signature != bpx.Magic {
		t.Fatal("Magic")
	}
}
