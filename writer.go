package bpx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"

	"github.com/gobpx/bpx/internal/spool"
	"github.com/gobpx/bpx/internal/xzenc"
)

// A Writer writes a BPX container.
//
// Sections are added in order with CreateSection (or CopySection); Close
// then writes the main header, the section table and the section bodies,
// laid out like the reference SDK: the data starts right after the table,
// sections follow in table order without gaps, each Pointer is the running
// offset, an empty section has CSize = USize = 0, and FileSize is
// 40 + 24·n + ΣCSize. The header checksum is computed last.
//
// Because the table precedes the data, every body waits for Close: up to
// WithSpoolThreshold bytes of a body stay in memory and the rest goes to a
// temporary file, and finished bodies beyond WithMemoryLimit in total move
// to one shared temporary file. While it writes, a Writer's heap stays
// below
//
//	M + (2·C + 1)·S + C·E + 1 MiB + 100 bytes per section
//
// where M is WithMemoryLimit, S WithSpoolThreshold, C WithConcurrency and
// E what one running compressor needs, whatever the section size:
//
//   - raw sections: nothing;
//   - zlib: about 1 MiB;
//   - xz: at most 8.5 MiB: a window of up to 4 MiB of the section, its
//     hash chain (4 bytes per position, at most 1 Mi positions) and a
//     512 KiB hash table;
//   - xz at LevelMax: 13.5 MiB with a 1 MiB dictionary, at most 45.5 MiB
//     (a window of 3 times the dictionary, capped at 4 MiB of history,
//     and a binary tree of 8 bytes per position of history).
//
// So memory does not depend on the section sizes. Up to max(2, GOMAXPROCS)
// idle xz encoders are kept between Writers for reuse (LevelMax's only
// while their Writer lives).
//
// Finished sections are compressed in the background, up to
// WithConcurrency at a time, while the caller writes the next one. The
// output depends only on the data and the options, never on scheduling.
//
// A Writer is not safe for concurrent use. Always call Close: it also
// removes the temporary files, whether it succeeds or not.
type Writer struct {
	dst     io.Writer
	cfg     writerConfig
	entries []*wentry
	cur     *sectionWriter
	closed  bool

	slots chan struct{} // one token per running compression
	// maxEncoders keeps the idle LevelMax xz encoders of this Writer.
	maxEncoders *freeList[xzenc.Encoder]
	wg          sync.WaitGroup
	shared      *spool.Shared // overflow file for finished in-memory bodies

	mu      sync.Mutex // guards err and memUsed
	err     error      // first failure; makes the Writer unusable
	memUsed int64      // memory held by finished bodies
}

// wentry is one section of the container being written.
type wentry struct {
	index int               // 0-based position in the table
	hdr   SectionHeader     // Pointer is set by Close
	body  *spool.Buffer     // stored bytes, nil when empty or copied
	src   *io.SectionReader // stored bytes of a copied section

	summary Summarizer // computes the data of a summary section at Close
	sumKind Checksum   // a summary section's checksum
}

// storedSize is the number of bytes the section occupies in the output.
func (e *wentry) storedSize() int64 {
	switch {
	case e.src != nil:
		return e.src.Size()
	case e.body != nil:
		return e.body.Size()
	}
	return 0
}

// NewWriter returns a Writer that writes a container to w when Close is
// called. Options set the main header fields and the writer's resources;
// its memory bound, a formula of them, is in the Writer's documentation.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	cfg, err := newWriterConfig(opts)
	cfg.concurrency = max(cfg.concurrency, 1)
	bw := &Writer{
		dst:   w,
		cfg:   cfg,
		slots: make(chan struct{}, cfg.concurrency),
		// LevelMax's encoders (up to 45.5 MiB each) are reused from one
		// section to the next, and go with the Writer.
		maxEncoders: newFreeList[xzenc.Encoder](cfg.concurrency, nil),
		shared:      spool.NewShared(cfg.tempDir),
	}
	if err != nil {
		bw.fail(err)
	}
	return bw
}

// SetType sets the main header's Type byte (default 0, like the
// reference's raw containers). It may be called until Close; it is the
// one way to set the Type, so that the packages of section types can set
// it on a Writer they are given.
func (w *Writer) SetType(t uint8) { w.cfg.typ = t }

// SetTypeExt sets the main header's TypeExt (default all zero). It may be
// called until Close.
func (w *Writer) SetTypeExt(ext [16]byte) { w.cfg.typeExt = ext }

// WriteSection adds a section holding the concatenation of data, stored as
// o asks: CreateSection and the writes in one call, for sections whose
// bytes are already in memory.
func (w *Writer) WriteSection(typ uint8, o SectionOptions, data ...[]byte) error {
	sw, err := w.CreateSection(typ, o)
	if err != nil {
		return err
	}
	for _, p := range data {
		if _, err := sw.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// SectionCount returns the number of sections created so far.
func (w *Writer) SectionCount() int { return len(w.entries) }

// maxWriterSections is the largest section count SectionNum can hold and
// whose table fits in a slice (fewer on 32-bit platforms); a variable so
// that tests can lower it.
var maxWriterSections = min(int64(math.MaxUint32), int64(maxInt/SectionHeaderSize))

var errWriterClosed = errors.New("bpx: writer is closed")

// CreateSection adds a section of type typ, stored as o asks, and returns
// the writer for its content, like zip.Writer.Create: the section ends when
// the next one is created (or copied) or at Close, and the returned writer
// must not be used after that. Sections get 0-based indexes in creation
// order.
//
// Writing more than 4 GiB - 1 bytes to a section fails with ErrTooLarge,
// as does creating more than 2^32 - 1 sections.
func (w *Writer) CreateSection(typ uint8, o SectionOptions) (io.Writer, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := w.newEntry(typ)
	if err != nil {
		return nil, err
	}
	e.hdr.Flags = o.checkFlag()
	w.cur = &sectionWriter{
		w:   w,
		e:   e,
		o:   o,
		buf: spool.New(w.cfg.tempDir, w.cfg.spoolThreshold),
		sum: sectionSum{kind: o.Checksum},
		// A raw section's checksum is computed while the data is written
		// (it is never read back otherwise); a compressed one's later,
		// beside the compression.
		summed: o.Compression == CompressNone,
	}
	return w.cur, nil
}

// newEntry ends the current section and appends a new entry.
func (w *Writer) newEntry(typ uint8) (*wentry, error) {
	if w.closed {
		return nil, errWriterClosed
	}
	w.endSection()
	if err := w.failure(); err != nil {
		return nil, err
	}
	if int64(len(w.entries)) >= maxWriterSections {
		return nil, fmt.Errorf("%w: more than %d sections", ErrTooLarge, maxWriterSections)
	}
	e := &wentry{index: len(w.entries), hdr: SectionHeader{Type: typ}}
	w.entries = append(w.entries, e)
	return e, nil
}

// failure returns the first error the Writer met, if any; once the
// context of WithContext is done, that is the context's cause.
func (w *Writer) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && w.cfg.ctx != nil && w.cfg.ctx.Err() != nil {
		w.err = fmt.Errorf("bpx: writer stopped: %w", context.Cause(w.cfg.ctx))
	}
	return w.err
}

// fail records err unless an earlier error is recorded.
func (w *Writer) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// endSection finishes the section being written, if any, and starts its
// compression. Failures are recorded with fail.
func (w *Writer) endSection() {
	s := w.cur
	if s == nil {
		return
	}
	w.cur = nil
	s.ended = true
	if s.err != nil {
		s.buf.Remove()
		w.fail(s.err)
		return
	}
	e, o := s.e, &s.o
	e.hdr.USize = uint32(s.n)
	if err := s.buf.Finish(); err != nil {
		s.buf.Remove()
		w.fail(err)
		return
	}
	if s.n == 0 {
		s.buf.Remove()
		return
	}
	if o.Compression == CompressNone || s.n <= int64(o.Threshold) {
		if !s.summed {
			if err := s.sum.of(s.buf); err != nil {
				s.buf.Remove()
				w.fail(err)
				return
			}
		}
		e.hdr.Checksum = s.sum.sum
		w.keep(e, s.buf, 0)
		return
	}
	w.slots <- struct{}{} // wait for a free worker
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer func() { <-w.slots }()
		w.compress(e, s.buf, o)
	}()
}

// compress runs in a worker: it compresses in and keeps whichever of the
// stream and the raw bytes is to be stored.
func (w *Writer) compress(e *wentry, in *spool.Buffer, o *SectionOptions) {
	if w.failure() != nil { // no point: Close will fail anyway
		in.Remove()
		return
	}
	// The checksum of a large section is computed beside the compression,
	// on another core when one is free, so it costs no time when a single
	// section is written; a small one's is not worth a goroutine.
	sum := sectionSum{kind: o.Checksum}
	sumErr := make(chan error, 1)
	if o.Checksum == ChecksumNone || in.Size() < 64<<10 {
		sumErr <- sum.of(in)
	} else {
		go func() { sumErr <- sum.of(in) }()
	}
	out := spool.New(w.cfg.tempDir, w.cfg.spoolThreshold)
	var dst io.Writer = out
	if w.cfg.ctx != nil {
		dst = newStopWriter(w, out)
	}
	flag, err := compressBody(in, dst, o, w.maxEncoders)
	if serr := <-sumErr; err == nil {
		err = serr
	}
	e.hdr.Checksum = sum.sum
	if err == nil && flag != 0 {
		err = out.Finish()
	}
	if err != nil {
		out.Remove()
		in.Remove()
		w.fail(fmt.Errorf("bpx: section %d: %w", e.index, err))
		return
	}
	if flag == 0 {
		out.Remove()
		w.keep(e, in, 0)
		return
	}
	in.Remove()
	w.keep(e, out, flag)
}

// keep stores body as e's data, with compression flag flag, and keeps the
// memory held by finished bodies under the limit by moving bodies that do
// not fit into the shared temporary file.
func (w *Writer) keep(e *wentry, body *spool.Buffer, flag uint8) {
	e.body = body
	e.hdr.Flags |= flag
	e.hdr.CSize = uint32(body.Size())
	if !body.InMemory() {
		return
	}
	fp := body.Footprint()
	w.mu.Lock()
	fits := w.memUsed+fp <= w.cfg.memoryLimit
	if fits {
		w.memUsed += fp
	}
	w.mu.Unlock()
	if !fits {
		if err := body.MoveTo(w.shared); err != nil {
			w.fail(err)
		}
	}
}

// Close finishes the last section, waits for the compressions, and writes
// the container to the underlying writer, which it does not close. It
// removes every temporary file, on success and on failure.
func (w *Writer) Close() error {
	if w.closed {
		return errWriterClosed
	}
	w.closed = true
	w.endSection()
	w.wg.Wait()
	err := w.failure()
	if err == nil {
		err = w.summarize()
	}
	if err == nil {
		err = w.writeOut()
	}
	if cerr := w.cleanup(); err == nil {
		err = cerr
	}
	return err
}

// Abort gives up the container: nothing is written to the underlying
// writer, the temporary files are removed, and every later call, Close
// included, fails with err (or an error saying the Writer was aborted
// when err is nil). For callers that hit an error of their own halfway
// through, where Close would write what was created so far.
func (w *Writer) Abort(err error) {
	if err == nil {
		err = errors.New("bpx: writer aborted")
	}
	w.fail(err)
	if !w.closed {
		w.Close()
	}
}

// cleanup releases every body and removes the temporary files.
func (w *Writer) cleanup() error {
	var err error
	for _, e := range w.entries {
		if e.body != nil {
			if rerr := e.body.Remove(); err == nil {
				err = rerr
			}
			e.body = nil
		}
		e.src = nil
	}
	if rerr := w.shared.Remove(); err == nil {
		err = rerr
	}
	w.memUsed = 0
	return err
}

// writeOut lays out and writes the whole container.
func (w *Writer) writeOut() error {
	n := len(w.entries)
	table := make([]byte, SectionHeaderSize*n)
	off := uint64(MainHeaderSize) + uint64(SectionHeaderSize)*uint64(n)
	for i, e := range w.entries {
		e.hdr.Pointer = off
		b := e.hdr.Marshal()
		copy(table[i*SectionHeaderSize:], b[:])
		off += uint64(e.storedSize())
	}
	version := w.cfg.version
	for _, e := range w.entries {
		if e.hdr.Flags&FlagZstd != 0 {
			// Only readers of VersionZstd know zstd sections.
			if version == Version1 {
				return fmt.Errorf("%w: a zstd section in a version-1 file", ErrUnsupported)
			}
			version = VersionZstd
		}
	}
	h := MainHeader{
		Type:       w.cfg.typ,
		FileSize:   off,
		SectionNum: uint32(n),
		Version:    version,
		TypeExt:    w.cfg.typeExt,
	}
	hb := h.Marshal()
	h.Checksum = HeaderChecksum(hb[:], table)
	hb = h.Marshal()

	dst := w.dst
	if w.cfg.ctx != nil {
		dst = newStopWriter(w, dst)
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	if _, err := bw.Write(hb[:]); err != nil {
		return err
	}
	if _, err := bw.Write(table); err != nil {
		return err
	}
	for i, e := range w.entries {
		if err := w.writeBody(bw, e); err != nil {
			return fmt.Errorf("bpx: writing section %d: %w", i, err)
		}
	}
	return bw.Flush()
}

func (w *Writer) writeBody(bw *bufio.Writer, e *wentry) error {
	switch {
	case e.src != nil:
		// Copied in 1 MiB reads: io.Copy would go through the writer's
		// ReadFrom, 32 KiB a read, which took most of the time of
		// editing a large package (one pair of syscalls per 32 KiB).
		want := e.src.Size()
		buf := copyBuffers.get()
		n, err := io.CopyBuffer(onlyWriter{bw}, io.NewSectionReader(e.src, 0, want), *buf)
		copyBuffers.put(buf)
		if err == nil && n != want {
			err = fmt.Errorf("%w: source section holds %d of its %d stored bytes", io.ErrUnexpectedEOF, n, want)
		}
		return err
	case e.body != nil:
		_, err := e.body.WriteTo(bw)
		return err
	}
	return nil
}

// copyBuffers keeps idle 1 MiB buffers of writeBody's section copies,
// which returns them.
var copyBuffers = newFreeList(2, func() *[]byte { b := make([]byte, 1<<20); return &b })

// onlyWriter hides the ReadFrom of a writer from io.CopyBuffer.
type onlyWriter struct{ io.Writer }

// stopWriter wraps the underlying writer, and the output of compressions,
// of a Writer with a context: a write fails once the context is done (see
// failure), so that a long compression stops too. Compressors write often
// (zlib every few hundred bytes): a write costs one channel poll.
type stopWriter struct {
	w    *Writer
	dst  io.Writer
	done <-chan struct{}
}

// newStopWriter returns the stopWriter of w writing to dst.
func newStopWriter(w *Writer, dst io.Writer) stopWriter {
	return stopWriter{w, dst, w.cfg.ctx.Done()}
}

func (s stopWriter) Write(p []byte) (int, error) {
	select {
	case <-s.done:
		return 0, s.w.failure()
	default:
	}
	return s.dst.Write(p)
}

// sectionWriter is the io.Writer CreateSection returns.
type sectionWriter struct {
	w      *Writer
	e      *wentry
	o      SectionOptions
	buf    *spool.Buffer
	n      int64      // bytes written
	sum    sectionSum // running checksum of the uncompressed bytes
	summed bool       // whether sum is kept up to date by Write
	err    error      // sticky
	ended  bool
}

// BlockEnder is implemented by the writers CreateSection returns.
// EndBlock ends the xz block being written where the bytes written so far
// end, besides the blocks of SectionOptions.BlockSize: a writer that knows
// where its data's parts begin (a package's objects) lets a reader decode
// one part without the ones before it, and lets two sections that share
// parts share their blocks' stored bytes. It does nothing for other
// compressions, or before any byte of the block.
type BlockEnder interface {
	EndBlock()
}

// EndBlock implements BlockEnder.
func (s *sectionWriter) EndBlock() {
	if s.o.Compression == CompressXZ && s.n > 0 && (len(s.o.cuts) == 0 || s.o.cuts[len(s.o.cuts)-1] < s.n) {
		s.o.cuts = append(s.o.cuts, s.n)
	}
}

// sectionSum computes a section checksum of the kind asked; it is an
// io.Writer so that spooled bodies can be fed to it.
type sectionSum struct {
	kind Checksum
	sum  uint32
}

func (c *sectionSum) Write(p []byte) (int, error) {
	switch c.kind {
	case ChecksumWeak:
		c.sum = WeakChecksum(c.sum, p)
	case ChecksumCRC32:
		c.sum = UpdateReferenceCRC32(c.sum, p)
	case ChecksumStandardCRC32:
		c.sum = crc32.Update(c.sum, crc32.IEEETable, p)
	}
	return len(p), nil
}

// of computes the checksum of a finished body.
func (c *sectionSum) of(b *spool.Buffer) error {
	if c.kind == ChecksumNone {
		return nil
	}
	_, err := b.WriteTo(c)
	return err
}

var errSectionEnded = errors.New("bpx: write to a section that has ended")

// Write appends p to the section's uncompressed content.
func (s *sectionWriter) Write(p []byte) (int, error) {
	if s.ended {
		return 0, errSectionEnded
	}
	if s.err != nil {
		return 0, s.err
	}
	if s.n+int64(len(p)) > math.MaxUint32 {
		s.err = fmt.Errorf("%w: section %d is larger than 4 GiB - 1 bytes", ErrTooLarge, s.e.index)
		return 0, s.err
	}
	if err := s.w.failure(); err != nil {
		s.err = err
		return 0, err
	}
	if s.summed {
		s.sum.Write(p)
	}
	n, err := s.buf.Write(p)
	s.n += int64(n)
	if err != nil {
		s.err = err
	}
	return n, err
}
