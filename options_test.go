package bpx_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// TestReaderOptionOutOfRange: a reader option given a value outside its
// range makes NewReader fail before it reads anything, naming the option.
func TestReaderOptionOutOfRange(t *testing.T) {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  bpx.Option
	}{
		{"WithMaxSections", bpx.WithMaxSections(-1)},
		{"WithMaxSectionSize", bpx.WithMaxSectionSize(-5)},
	} {
		var reads countingReaderAt
		reads.r = bytes.NewReader(file.Bytes())
		_, err := bpx.NewReader(&reads, int64(file.Len()), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: err = %v, want an error naming the option", tc.name, err)
		}
		if reads.n != 0 {
			t.Errorf("%s: %d reads before the option error", tc.name, reads.n)
		}
	}
	// In range, the same container opens.
	if _, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), bpx.WithMaxSections(0), bpx.WithMaxSectionSize(0)); err != nil {
		t.Fatal(err)
	}
}

type countingReaderAt struct {
	r *bytes.Reader
	n int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n++
	return c.r.ReadAt(p, off)
}

// TestWriterOptionOutOfRange: a writer option outside its range makes the
// Writer fail with the option's error at the first call that can report
// it, and nothing is written.
func TestWriterOptionOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  bpx.WriterOption
		is   error
	}{
		{"WithVersion", bpx.WithVersion(3), bpx.ErrUnsupported},
		{"WithVersion", bpx.WithVersion(0), bpx.ErrUnsupported},
		{"WithSpoolThreshold", bpx.WithSpoolThreshold(-1), nil},
		{"WithMemoryLimit", bpx.WithMemoryLimit(-1), nil},
		{"WithConcurrency", bpx.WithConcurrency(0), nil},
	} {
		var out bytes.Buffer
		w := bpx.NewWriter(&out, tc.opt)
		_, err := w.CreateSection(1, bpx.SectionOptions{})
		if err == nil {
			t.Errorf("%s: CreateSection succeeded", tc.name)
		} else if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.is)
		} else if tc.is == nil && !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: err = %v, want it to name the option", tc.name, err)
		}
		if cerr := w.Close(); cerr == nil {
			t.Errorf("%s: Close succeeded", tc.name)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written", tc.name, out.Len())
		}
	}
}
