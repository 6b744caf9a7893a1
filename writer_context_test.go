package bpx_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/gobpx/bpx"
)

// errStop is the cause the context tests cancel with.
var errStop = errors.New("stop requested")

// TestWriterContextStopsWriting: once the context of WithContext is done,
// writes, CreateSection, CopySection and Close fail with its cause,
// nothing reaches the underlying writer and the temporary files are gone.
func TestWriterContextStopsWriting(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	var out bytes.Buffer
	w := bpx.NewWriter(&out, bpx.WithContext(ctx), bpx.WithTempDir(dir), bpx.WithSpoolThreshold(4096), bpx.WithMemoryLimit(0))
	sw, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressZlib})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Write(textData(100000, 1)); err != nil {
		t.Fatal(err)
	}
	if len(dirEntries(t, dir)) == 0 {
		t.Fatal("no temporary file: the test proves nothing")
	}
	cancel(errStop)
	if _, err := sw.Write([]byte("more")); !errors.Is(err, errStop) {
		t.Errorf("Write after the cancellation = %v, want the cause", err)
	}
	if _, err := w.CreateSection(2, bpx.SectionOptions{}); !errors.Is(err, errStop) {
		t.Errorf("CreateSection after the cancellation = %v, want the cause", err)
	}
	src := openBytes(t, writeContainer(t, []testSection{{typ: 3, data: []byte("copied")}}))
	if err := w.CopySection(src.Sections[0]); !errors.Is(err, errStop) {
		t.Errorf("CopySection after the cancellation = %v, want the cause", err)
	}
	if err := w.Close(); !errors.Is(err, errStop) {
		t.Errorf("Close = %v, want the cause", err)
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written to the underlying writer", out.Len())
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// cancellingWriter cancels its context on the first write and counts the
// writes it gets.
type cancellingWriter struct {
	cancel context.CancelCauseFunc
	writes int
}

func (c *cancellingWriter) Write(p []byte) (int, error) {
	c.writes++
	c.cancel(errStop)
	return len(p), nil
}

// TestWriterContextStopsClose: a context done while Close writes the
// container out stops it at the next write.
func TestWriterContextStopsClose(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancelCause(context.Background())
	dst := &cancellingWriter{cancel: cancel}
	w := bpx.NewWriter(dst, bpx.WithContext(ctx), bpx.WithTempDir(dir), bpx.WithMemoryLimit(0))
	for i := range 8 {
		if err := w.WriteSection(uint8(i), bpx.SectionOptions{}, randomData(1<<20, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); !errors.Is(err, errStop) {
		t.Errorf("Close = %v, want the cause", err)
	}
	if dst.writes != 1 {
		t.Errorf("%d writes reached the underlying writer, want 1 (then the stop)", dst.writes)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestWriterContextNil: a nil context is refused, as other options' bad
// values are.
func TestWriterContextNil(t *testing.T) {
	//lint:ignore SA1012 the nil context is the point
	w := bpx.NewWriter(io.Discard, bpx.WithContext(nil))
	if err := w.Close(); err == nil {
		t.Error("WithContext(nil) accepted")
	}
}
