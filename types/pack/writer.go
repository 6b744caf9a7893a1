package pack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// DefaultSectionSize is the default target size of a data section.
//
// Small objects share data sections up to this size, and reading any object
// decompresses its whole section (which is then cached), so the size trades
// random-access latency against compression ratio: larger sections make a
// smaller package (with xz, the dictionary is the section size) and a
// slower first read of one small object. 1 MiB is the smallest size at
// which a package of Go source is about three quarters of zip's size, while
// reading one small file still costs about as much as unzip -p of it.
// BPX_MEASURE=1 go test -run MeasureSectionSize ./types/pack measures both
// for several sizes.
const DefaultSectionSize = 1 << 20

const tableThreshold = 64 << 10

// Writer writes a package in the style of archive/zip.Writer: Create adds
// an object and returns the writer of its bytes, Close writes the package.
//
// The sections are laid out as the reference SDK 4 writes them: object
// table, strings, metadata (once), then the data sections. Since the tables
// come first but are only known at the end, data sections go to a temporary
// container (compressed in parallel, at most MemoryLimit bytes in memory)
// which Close copies behind the tables without recompressing. Memory use
// does not grow with the data, only with the number of objects (20 bytes
// plus the name each).
//
// A package keeps within WithMaxSections sections (by default
// bpx.ReferenceMaxSections, the most the reference SDK reads through a
// buffered reader): AddFS grows the section size to fit the files it adds
// (a package of T bytes gets sections of about T/336 bytes once that is
// more than the section size), and Close joins the smallest neighbouring
// data sections, decoding and encoding them again, if the objects still
// need more.
//
// A Writer is not safe for concurrent use. Always call Close: it also
// removes the temporary files, whether it succeeds or not.
type Writer struct {
	dst io.Writer
	cfg writerConfig
	ext TypeExt

	// The data sections are written to temporary containers as they
	// fill, one a stream: compressed sections, stored ones and compressed
	// text (see classify.go). order numbers them together, in the order
	// they were started: the Start of a table entry is that number until
	// Close.
	streams [numStreams]dataStream
	order   []secRef
	head    []byte // the first bytes of an object of undecided class
	names   bpxstrings.Builder
	table   []byte     // object entries; Start relative to the first data section
	sums    []uint32   // the CRC-32C of each object, see SectionDigests
	times   []int64    // the time of each object, see SectionModTimes
	chunks  streamSums // see SectionStreamDigests
	meta    []byte
	err     error

	removed    []string // names given to Remove, see removed.go
	removedSet map[string]bool

	obj     *objState
	gen     int
	signTmp *os.File // the unsigned package, when signing (see output)
}

// dataStream is one of the Writer's two kinds of data sections, being
// written to a temporary container.
type dataStream struct {
	tmp      *os.File
	bw       *bpx.Writer
	bwClosed bool
	cur      io.Writer // current section
	curIdx   int       // its number in the Writer's order; -1 before the first
	curSize  int64
	blockAt  int64 // where the current xz block started in the section (WithStableSections)
}

// secRef is a section of a dataStream: the stream and its index in the
// stream's temporary container.
type secRef struct {
	stream, index int
}

type objState struct {
	gen           int
	name          uint32
	path          string // the name, for WithStableSections
	size, expect  int64  // expect < 0: unknown
	started       bool
	start, offset uint32
	large         bool
	sum           uint32 // CRC-32C of the bytes so far
	class         objClass
	mtime         int64   // see SectionModTimes
	chunks        chunker // its chunk digests, if stored raw (see SectionStreamDigests)
}

// NewWriter returns a Writer that writes a package to w when Close is
// called, configured by opts. An option given a value outside its range
// makes the Writer fail with the option's error at the first Create,
// CreateSized, AddFS or Close.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	pw := &Writer{dst: w, ext: TypeExt{Arch: ArchAny, Platform: PlatformAny, Generator: GeneratorGoBPX}}
	for i := range pw.streams {
		pw.streams[i].curIdx = -1
	}
	pw.cfg, pw.err = newWriterConfig(opts)
	return pw
}

// SetTypeExt sets the package's TypeExt. It may be called until Close.
func (w *Writer) SetTypeExt(t TypeExt) { w.ext = t }

// metaOptions are the options metadata is encoded with.
func (w *Writer) metaOptions() []sd.EncodeOption {
	if w.cfg.metadataNames {
		return []sd.EncodeOption{sd.WithDebugNames()}
	}
	return nil
}

// SetMetadata sets the metadata object, written once at Close into a
// metadata section. nil removes it.
func (w *Writer) SetMetadata(o *sd.Object) error {
	if o == nil {
		w.meta = nil
		return nil
	}
	b, err := sd.Encode(o, w.metaOptions()...)
	if err != nil {
		return err
	}
	w.meta = b
	return nil
}

// SetMetadataValue sets the metadata from a Go value (a struct or a map)
// encoded with sd.Marshal.
func (w *Writer) SetMetadataValue(v any) error {
	b, err := sd.Marshal(v, w.metaOptions()...)
	if err != nil {
		return err
	}
	w.meta = b
	return nil
}

// Create adds an object named name and returns the writer of its bytes,
// valid until the next Create, CreateSized or Close. The name must be a
// valid fs path (see fs.ValidPath) not used before, unless
// the Writer was made with AllowInvalidNames.
func (w *Writer) Create(name string) (io.Writer, error) { return w.create(name, -1, classUnknown) }

// CreateSized is Create for an object whose size is known: exactly size
// bytes must be written. An object of at least the section size
// (WithSectionSize) gets data sections of its own.
func (w *Writer) CreateSized(name string, size int64) (io.Writer, error) {
	if size < 0 {
		return nil, errors.New("pack: negative object size")
	}
	return w.create(name, size, classUnknown)
}

// create starts the object name of size bytes (-1: unknown) of class c
// (classUnknown: decided from its first bytes).
func (w *Writer) create(name string, size int64, c objClass) (io.Writer, error) {
	if err := w.finishObject(); err != nil {
		return nil, err
	}
	off, err := w.addName("Create", name)
	if err != nil {
		return nil, err
	}
	w.gen++
	gen := w.gen
	w.obj = &objState{gen: gen, name: off, path: name, expect: size, mtime: noTime}
	w.head = w.head[:0]
	switch {
	case !w.classifies():
		w.route(classCompress, size)
	case c != classUnknown:
		w.route(c, size)
	}
	return &objWriter{w: w, gen: gen}, nil
}

// classifies reports whether the Writer sorts objects into compressed and
// stored sections: not when it compresses nothing.
func (w *Writer) classifies() bool {
	return w.cfg.compression != bpx.CompressNone && !w.cfg.compressAll
}

// classSectionSize returns the section size of class cl: the configured one for
// compressed sections, 16 times it (up to 4 GiB - 1) for stored ones, whose
// objects are read in place whatever the section's size.
func (c *writerConfig) classSectionSize(cl objClass) int64 {
	if cl == classStore {
		return min(16*c.sectionSize, math.MaxUint32)
	}
	return c.sectionSize
}

// largeObject returns the size from which an object of class cl gets data
// sections of its own: the section size for compressed sections, a
// quarter of it for stored ones.
func (c *writerConfig) largeObject(cl objClass) int64 {
	if cl == classStore {
		return c.classSectionSize(cl) / 4
	}
	return c.sectionSize
}

// route sends the current object, of size bytes (-1: unknown), to the
// sections of class c: a large object starts a section of its own, and
// one that fits a section but not what is left of the current one starts
// the next, so that reading it never needs two sections.
func (w *Writer) route(c objClass, size int64) {
	ob := w.obj
	ob.class = c
	st := w.stream(c)
	sec := w.cfg.classSectionSize(c)
	ob.large = size >= w.cfg.largeObject(c)
	if st.curSize > 0 && (ob.large || size >= 0 && st.curSize+size > sec) {
		st.cur = nil
	}
}

// storesRaw reports whether the Writer stores objects of class c raw.
func (w *Writer) storesRaw(c objClass) bool {
	return c == classStore || w.cfg.compression == bpx.CompressNone
}

// stream returns the dataStream of class c.
func (w *Writer) stream(c objClass) *dataStream { return &w.streams[streamOf(c)] }

// addName checks name for op and adds it to the strings, returning its
// string pointer.
func (w *Writer) addName(op, name string) (uint32, error) {
	if !w.cfg.allowInvalidNames && (name == "." || !fs.ValidPath(name)) {
		return 0, fmt.Errorf("pack: %s(%q): %w", op, name, ErrInsecurePath)
	}
	before := w.names.Len()
	off, err := w.names.Add(name)
	if err != nil {
		return 0, fmt.Errorf("pack: %s(%q): %w", op, name, err)
	}
	if int(off) < before && !w.cfg.allowInvalidNames {
		return 0, fmt.Errorf("pack: %s(%q): duplicate name: %w", op, name, ErrInsecurePath)
	}
	if uint64(len(w.table))/ObjectEntrySize >= uint64(^uint32(0)) {
		return 0, w.fail(fmt.Errorf("pack: too many objects: %w", bpx.ErrTooLarge))
	}
	return off, nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// tmpWriter creates the temporary container of stream i on first use.
// Stored sections keep nothing in memory: they are large, and only
// copied.
func (w *Writer) tmpWriter(i int) (*bpx.Writer, error) {
	st := &w.streams[i]
	if st.bw != nil {
		return st.bw, nil
	}
	f, err := os.CreateTemp(w.cfg.tempDir, "bpx-pack-*")
	if err != nil {
		return nil, w.fail(err)
	}
	st.tmp = f
	opts := []bpx.WriterOption{
		bpx.WithMemoryLimit(w.cfg.memoryLimit),
		bpx.WithSpoolThreshold(min(w.cfg.sectionSize+w.cfg.sectionSize/8, 8<<20)),
	}
	if i == streamStore {
		opts = []bpx.WriterOption{bpx.WithMemoryLimit(0), bpx.WithSpoolThreshold(256 << 10)}
	}
	if w.cfg.concurrency > 0 {
		opts = append(opts, bpx.WithConcurrency(w.cfg.concurrency))
	}
	if w.cfg.tempDir != "" {
		opts = append(opts, bpx.WithTempDir(w.cfg.tempDir))
	}
	if w.cfg.ctx != nil {
		opts = append(opts, bpx.WithContext(w.cfg.ctx))
	}
	st.bw = bpx.NewWriter(f, opts...)
	return st.bw, nil
}

// newSection starts the next section of the current object's stream.
func (w *Writer) newSection(c objClass) error {
	i := streamOf(c)
	opts := w.dataOptions()
	if i == streamStore {
		opts = storedOptions(opts)
	}
	bw, err := w.tmpWriter(i)
	if err != nil {
		return err
	}
	idx := bw.SectionCount()
	sw, err := bw.CreateSection(SectionData, opts)
	if err != nil {
		return w.fail(err)
	}
	st := &w.streams[i]
	st.cur, st.curIdx, st.curSize, st.blockAt = sw, len(w.order), 0, 0
	w.order = append(w.order, secRef{i, idx})
	return nil
}

// storedOptions are opts for a stored section.
func storedOptions(opts bpx.SectionOptions) bpx.SectionOptions {
	return bpx.SectionOptions{Checksum: opts.Checksum}
}

type objWriter struct {
	w   *Writer
	gen int
}

func (o *objWriter) Write(p []byte) (int, error) {
	w := o.w
	if w.err != nil {
		return 0, w.err
	}
	if w.obj == nil || w.obj.gen != o.gen {
		return 0, errors.New("pack: write to an object after the next Create or Close")
	}
	ob := w.obj
	if ob.expect >= 0 && ob.size+int64(len(w.head))+int64(len(p)) > ob.expect {
		return 0, fmt.Errorf("pack: object written beyond its declared size %d", ob.expect)
	}
	if ob.class == classUnknown {
		// Buffer the first bytes, then decide.
		k := min(len(p), sampleSize-len(w.head))
		w.head = append(w.head, p[:k]...)
		if len(w.head) < sampleSize {
			return len(p), nil
		}
		w.route(classify(w.head, ob.expect != int64(len(w.head))), ob.expect)
		if err := w.flushHead(); err != nil {
			return 0, err
		}
		n, err := w.writeData(p[k:])
		return k + n, err
	}
	return w.writeData(p)
}

// flushHead writes the buffered first bytes of the current object, whose
// class is decided.
func (w *Writer) flushHead() error {
	_, err := w.writeData(w.head)
	w.head = w.head[:0]
	return err
}

// writeData writes p to the sections of the current object's class.
func (w *Writer) writeData(p []byte) (int, error) {
	ob := w.obj
	st := w.stream(ob.class)
	sec := w.cfg.classSectionSize(ob.class)
	n := 0
	for len(p) > 0 {
		if st.cur == nil || st.curSize >= sec {
			if err := w.newSection(ob.class); err != nil {
				return n, err
			}
		}
		if !ob.started {
			ob.started, ob.start, ob.offset = true, uint32(st.curIdx), uint32(st.curSize)
		}
		m := int(min(int64(len(p)), sec-st.curSize))
		k, err := st.cur.Write(p[:m])
		n += k
		st.curSize += int64(k)
		ob.size += int64(k)
		ob.sum = crc32.Update(ob.sum, castagnoli, p[:k])
		if w.storesRaw(ob.class) {
			ob.chunks.write(p[:k])
		}
		if err != nil {
			return n, w.fail(err)
		}
		p = p[m:]
	}
	return n, nil
}

// finishObject records the current object in the table.
func (w *Writer) finishObject() error {
	if w.err != nil {
		return w.err
	}
	ob := w.obj
	if ob == nil || ob.gen < 0 {
		return nil
	}
	if ob.class == classUnknown && len(w.head) > 0 {
		// An object shorter than the sample: its size is known now.
		w.route(classify(w.head, false), int64(len(w.head)))
		if err := w.flushHead(); err != nil {
			return err
		}
	}
	if ob.expect >= 0 && ob.size != ob.expect {
		return w.fail(fmt.Errorf("pack: object written with %d bytes, declared %d: %w", ob.size, ob.expect, io.ErrShortWrite))
	}
	if !ob.started { // empty: point at the current position, as the reference does
		for _, i := range []int{streamCompress, streamText, streamStore} {
			if st := &w.streams[i]; st.curIdx >= 0 {
				ob.start, ob.offset = uint32(st.curIdx), uint32(st.curSize)
				break
			}
		}
	}
	var e [ObjectEntrySize]byte
	binary.LittleEndian.PutUint64(e[:], uint64(ob.size))
	binary.LittleEndian.PutUint32(e[8:], ob.name)
	binary.LittleEndian.PutUint32(e[12:], ob.start)
	binary.LittleEndian.PutUint32(e[16:], ob.offset)
	w.table = append(w.table, e[:]...)
	w.sums = append(w.sums, ob.sum)
	w.times = append(w.times, ob.mtime)
	if sums := ob.chunks.finish(); ob.size >= StreamDigestsMin && w.storesRaw(ob.class) {
		w.chunks.add(streamKey{ob.sum, uint64(ob.size)}, sums)
	}
	if ob.large {
		w.stream(ob.class).cur = nil // nothing shares the sections of a large object
	} else if st := w.stream(ob.class); w.cfg.stable && st.cur != nil {
		switch {
		case sectionEnd(ob.path, ob.size, st.curSize, w.cfg.classSectionSize(ob.class)):
			st.cur = nil
		case sectionEnd(ob.path, ob.size, st.curSize-st.blockAt, stableBlockSize):
			// The same rule, at a smaller scale, ends the xz block:
			// a change costs the rest of its block, not of its section.
			if be, ok := st.cur.(bpx.BlockEnder); ok {
				be.EndBlock()
				st.blockAt = st.curSize
			}
		}
	}
	ob.gen = -1 // later writes fail
	return nil
}

// Close finishes the last object and writes the package to the underlying
// writer, which it does not close; with WithSigningKey, a signed package.
// It removes the temporary files.
func (w *Writer) Close() (err error) {
	defer w.cleanup()
	if err := w.mergeRemovals(); err != nil {
		return err
	}
	rd, err := w.finishData()
	if err != nil {
		return err
	}
	// Data sections follow the object table, the strings, the metadata
	// and the object digests.
	head := 3
	if w.meta != nil {
		head = 4
	}
	var files []indexFile
	indexed := w.cfg.wantIndex(len(w.table) + w.names.Len())
	if indexed {
		files, indexed = indexFiles(len(w.table)/ObjectEntrySize, tableNames(w.table, w.names.Bytes()))
	}
	if indexed {
		head++
	}
	times := anyTime(w.times)
	if times {
		head++ // after the digests
	}
	streamSums := w.chunks.marshal()
	if streamSums != nil {
		head++ // after the times
	}
	// The chunk digests come last.
	tail := 0
	chunks := w.cfg.wantChunks(objectBytes(w.table))
	if chunks {
		tail++
	}
	parts, partOf := dataParts(rd)
	limit := 0
	if m := w.cfg.contentSections(); m > 0 {
		limit = max(1, m-head-tail)
	}
	pl, err := planData(parts, w.cfg.planSizes(), func(int) bool { return false }, limit)
	if err != nil {
		return err
	}
	for i := 0; i < len(w.table); i += ObjectEntrySize {
		e := w.table[i:]
		start, offset := binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:])
		if int(start) < len(parts) { // else an empty object of an empty package
			g, off := pl.pos(partOf[start], uint64(offset))
			start, offset = uint32(g), uint32(off)
		}
		binary.LittleEndian.PutUint32(e[12:], start+uint32(head))
		binary.LittleEndian.PutUint32(e[16:], offset)
	}
	out, err := w.output()
	if err != nil {
		return err
	}
	bw := bpx.NewWriter(out, w.rewriteOptions()...)
	bw.SetType(bpx.TypePackage)
	bw.SetTypeExt(w.ext.Marshal())
	tables := w.tableOptions(indexed)
	if indexed {
		err = bw.WriteSection(SectionPathIndex, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, makePathIndex(files, w.table, w.names.Bytes(), w.sums, tables.Checksum))
	}
	if err == nil {
		err = bw.WriteSection(SectionObjectTable, tables, w.table)
	}
	if err == nil {
		err = bw.WriteSection(SectionStrings, tables, w.names.Bytes())
	}
	if err == nil && w.meta != nil {
		err = bw.WriteSection(SectionMetadata, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, w.meta)
	}
	if err == nil {
		err = bw.WriteSection(SectionDigests, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, marshalDigests(w.table, w.sums))
	}
	if err == nil && times {
		err = bw.WriteSection(SectionModTimes, w.tableOptions(false), marshalModTimes(w.table, w.times))
	}
	if err == nil && streamSums != nil {
		err = bw.WriteSection(SectionStreamDigests, streamDigestOptions, streamSums)
	}
	if err == nil {
		err = pl.write(bw, w.dataOptions())
	}
	if err == nil && chunks {
		err = writeChunkDigests(bw, objectBytes(w.table), nil)
	}
	if err != nil {
		bw.Abort(err)
		return err
	}
	if err := bw.Close(); err != nil {
		return err
	}
	return w.finishOutput()
}

// finishData finishes the last object and the temporary containers of the
// data sections, and returns their sections in the order they were
// started; the Writer takes no more objects. The containers stay readable
// until cleanup.
func (w *Writer) finishData() ([]tempSection, error) {
	if err := w.finishObject(); err != nil {
		return nil, err
	}
	w.obj = &objState{gen: -1}
	w.err = errors.New("pack: Writer closed")
	var rds [numStreams]*bpx.Reader
	for i := range w.streams {
		st := &w.streams[i]
		if st.bw == nil {
			continue
		}
		st.bw.SetTypeExt(w.ext.Marshal())
		st.bw.SetType(bpx.TypePackage)
		st.bwClosed = true
		if err := st.bw.Close(); err != nil {
			return nil, err
		}
		size, err := st.tmp.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, err
		}
		if rds[i], err = bpx.NewReader(st.tmp, size); err != nil {
			return nil, err
		}
	}
	secs := make([]tempSection, len(w.order))
	for g, r := range w.order {
		secs[g] = tempSection{s: rds[r.stream].Sections[r.index], stream: r.stream}
	}
	return secs, nil
}

// tempSection is a data section of a Writer's temporary containers.
type tempSection struct {
	s      *bpx.Section
	stream int // streamCompress, streamStore or streamText (see classify.go)
}

// dataParts returns the data parts of the temporary sections secs: text
// sections first (what a game reads at startup, next to the tables), then
// the other compressed ones, then stored ones, each kind in the order
// written (so that neighbours of a kind may be joined); and the part of
// each section.
func dataParts(secs []tempSection) ([]dataPart, []int) {
	parts := make([]dataPart, 0, len(secs))
	partOf := make([]int, len(secs))
	for _, stream := range []int{streamText, streamCompress, streamStore} {
		for i, t := range secs {
			if t.stream == stream {
				partOf[i] = len(parts)
				parts = append(parts, dataPart{s: t.s, size: uint64(t.s.USize), stored: stream == streamStore})
			}
		}
	}
	return parts, partOf
}

// planSizes are the section sizes planData joins parts up to: compressed,
// stored.
func (c *writerConfig) planSizes() [2]uint64 {
	return [2]uint64{uint64(c.classSectionSize(classCompress)), uint64(c.classSectionSize(classStore))}
}

// dataOptions are how data sections are stored.
func (w *Writer) dataOptions() bpx.SectionOptions {
	o := bpx.SectionOptions{Compression: w.cfg.compression, Checksum: w.cfg.dataChecksum(), Level: w.cfg.level, XZDictSize: int(max(4096, min(w.cfg.sectionSize, maxXZDict)))}
	if c := w.cfg; c.compression == bpx.CompressXZ && c.blockSize > 0 && c.sectionSize > c.blockSize {
		o.BlockSize = c.blockSize
	}
	return o
}

// tableOptions are how the object table and strings sections are stored:
// compressed above tableThreshold with the weak checksum the reference
// writes (or raw, WithRawTables), or, with a path index (indexed), raw
// with the reference's CRC32, which any change of their bytes changes
// (see SectionPathIndex).
func (w *Writer) tableOptions(indexed bool) bpx.SectionOptions {
	if indexed {
		return bpx.SectionOptions{Checksum: w.cfg.crc32()}
	}
	tables := bpx.SectionOptions{Checksum: bpx.ChecksumWeak}
	if !w.cfg.rawTables {
		tables.Compression, tables.Threshold, tables.Level = w.cfg.compression, tableThreshold, w.cfg.level
	}
	return tables
}

func (w *Writer) rewriteOptions() []bpx.WriterOption {
	opts := []bpx.WriterOption{bpx.WithMemoryLimit(w.cfg.memoryLimit)}
	if w.cfg.tempDir != "" {
		opts = append(opts, bpx.WithTempDir(w.cfg.tempDir))
	}
	if w.cfg.ctx != nil {
		opts = append(opts, bpx.WithContext(w.cfg.ctx))
	}
	if w.cfg.compression == bpx.CompressZstd {
		// The profile's file, whatever its sections end up as: its
		// CRC32 sections carry the standard CRC-32 (see crc32), which
		// readers of version 2 would refuse.
		opts = append(opts, bpx.WithVersion(bpx.VersionZstd))
	}
	return opts
}

func (w *Writer) cleanup() {
	for i := range w.streams {
		st := &w.streams[i]
		if st.bw != nil && !st.bwClosed {
			st.bwClosed = true
			st.bw.Close() // removes its spool files
		}
		if st.tmp != nil {
			st.tmp.Close()
			os.Remove(st.tmp.Name())
			st.tmp = nil
		}
	}
	w.removeSignTemp()
}

// maxXZDict bounds the xz dictionary of data sections: the dictionary is
// the section size (so matches reach across the whole section), up to this.
const maxXZDict = 8 << 20
