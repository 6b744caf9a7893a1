package bpx

import (
	"fmt"
	"io"
	"math"

	"github.com/gobpx/bpx/internal/spool"
)

// A Summarizer computes the data of a section from the sections before it
// as they will be stored: see Writer.WriteSummary. A digest of every
// section's stored bytes, which a reader compares with the bytes of
// another copy without decoding either, is one.
type Summarizer interface {
	// Add is called at Close once for each section created before the
	// summary, in table order, with its header (but its Pointer, not yet
	// known) and its stored bytes, compressed as they will be written. A
	// section that holds no byte comes with an empty reader. An error
	// makes Close fail with it.
	Add(h SectionHeader, stored io.Reader) error
	// Data returns the summary section's data, called once after the
	// last Add.
	Data() ([]byte, error)
}

// WriteSummary adds a section of type typ whose data s computes at Close
// from the stored bytes of every section created before it (summaries
// before it included), once they are all compressed: s reads them again,
// from memory or from the Writer's temporary files, before the container
// is written. The section is stored without compression (o.Compression
// must be CompressNone) with the checksum o asks.
func (w *Writer) WriteSummary(typ uint8, o SectionOptions, s Summarizer) error {
	if s == nil {
		return fmt.Errorf("bpx: WriteSummary: nil Summarizer")
	}
	if o.Compression != CompressNone {
		return fmt.Errorf("bpx: WriteSummary: compression %v: a summary is stored as it is", o.Compression)
	}
	if err := o.validate(); err != nil {
		return err
	}
	e, err := w.newEntry(typ)
	if err != nil {
		return err
	}
	e.hdr.Flags = o.checkFlag()
	e.summary, e.sumKind = s, o.Checksum
	return nil
}

// summarize computes the summary sections; Close calls it once every
// compression is done.
func (w *Writer) summarize() error {
	for _, e := range w.entries {
		if e.summary == nil {
			continue
		}
		for _, p := range w.entries[:e.index] {
			if err := p.feed(e.summary); err != nil {
				return fmt.Errorf("bpx: summary section %d, reading section %d: %w", e.index, p.index, err)
			}
		}
		data, err := e.summary.Data()
		if err != nil {
			return fmt.Errorf("bpx: summary section %d: %w", e.index, err)
		}
		if int64(len(data)) > math.MaxUint32 {
			return fmt.Errorf("%w: summary section %d is larger than 4 GiB - 1 bytes", ErrTooLarge, e.index)
		}
		sum := sectionSum{kind: e.sumKind}
		sum.Write(data)
		e.hdr.USize, e.hdr.Checksum = uint32(len(data)), sum.sum
		if len(data) == 0 {
			continue
		}
		buf := spool.New(w.cfg.tempDir, w.cfg.spoolThreshold)
		if _, err := buf.Write(data); err == nil {
			err = buf.Finish()
		}
		if err != nil {
			buf.Remove()
			return err
		}
		w.keep(e, buf, 0)
	}
	return w.failure()
}

// feed gives e's stored bytes to s.
func (e *wentry) feed(s Summarizer) error {
	switch {
	case e.src != nil:
		return s.Add(e.hdr, io.NewSectionReader(e.src, 0, e.src.Size()))
	case e.body == nil:
		return s.Add(e.hdr, eofReader{})
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := e.body.WriteTo(pw)
		pw.CloseWithError(err)
	}()
	err := s.Add(e.hdr, pr)
	pr.CloseWithError(io.ErrClosedPipe) // a summarizer that stopped early ends the copy
	<-done
	return err
}
