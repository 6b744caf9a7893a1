package pack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
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

	tmp   *os.File
	bw    *bpx.Writer
	names bpxstrings.Builder
	table []byte   // object entries; Start relative to the first data section
	sums  []uint32 // the CRC-32C of each object, see SectionDigests
	meta  []byte
	err   error

	removed    []string // names given to Remove, see removed.go
	removedSet map[string]bool

	cur      io.Writer // current data section
	curIdx   int       // its index in the temporary container
	curSize  int64
	sections int

	obj      *objState
	gen      int
	bwClosed bool
	signTmp  *os.File // the unsigned package, when signing (see output)
}

type objState struct {
	gen           int
	name          uint32
	size, expect  int64 // expect < 0: unknown
	started       bool
	start, offset uint32
	large         bool
	sum           uint32 // CRC-32C of the bytes so far
}

// NewWriter returns a Writer that writes a package to w when Close is
// called, configured by opts. An option given a value outside its range
// makes the Writer fail with the option's error at the first Create,
// CreateSized, AddFS or Close.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	pw := &Writer{dst: w, ext: TypeExt{Arch: ArchAny, Platform: PlatformAny, Generator: GeneratorGoBPX}, curIdx: -1}
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
func (w *Writer) Create(name string) (io.Writer, error) { return w.create(name, -1) }

// CreateSized is Create for an object whose size is known: exactly size
// bytes must be written. An object of at least the section size
// (WithSectionSize) gets data sections of its own.
func (w *Writer) CreateSized(name string, size int64) (io.Writer, error) {
	if size < 0 {
		return nil, errors.New("pack: negative object size")
	}
	return w.create(name, size)
}

func (w *Writer) create(name string, size int64) (io.Writer, error) {
	if err := w.finishObject(); err != nil {
		return nil, err
	}
	off, err := w.addName("Create", name)
	if err != nil {
		return nil, err
	}
	w.gen++
	gen := w.gen
	w.obj = &objState{gen: gen, name: off, expect: size, large: size >= w.cfg.sectionSize}
	if w.obj.large && w.curSize > 0 {
		w.cur = nil // a large object starts a section of its own
	}
	return &objWriter{w: w, gen: gen}, nil
}

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

// tmpWriter creates the temporary container on first use.
func (w *Writer) tmpWriter() (*bpx.Writer, error) {
	if w.bw != nil {
		return w.bw, nil
	}
	f, err := os.CreateTemp(w.cfg.tempDir, "bpx-pack-*")
	if err != nil {
		return nil, w.fail(err)
	}
	w.tmp = f
	opts := []bpx.WriterOption{
		bpx.WithMemoryLimit(w.cfg.memoryLimit),
		bpx.WithSpoolThreshold(min(w.cfg.sectionSize+w.cfg.sectionSize/8, 8<<20)),
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
	w.bw = bpx.NewWriter(f, opts...)
	return w.bw, nil
}

func (w *Writer) newSection() error {
	bw, err := w.tmpWriter()
	if err != nil {
		return err
	}
	sw, err := bw.CreateSection(SectionData, w.dataOptions())
	if err != nil {
		return w.fail(err)
	}
	w.cur, w.curIdx, w.curSize = sw, w.sections, 0
	w.sections++
	return nil
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
	if ob.expect >= 0 && ob.size+int64(len(p)) > ob.expect {
		return 0, fmt.Errorf("pack: object written beyond its declared size %d", ob.expect)
	}
	n := 0
	for len(p) > 0 {
		if w.cur == nil || w.curSize >= w.cfg.sectionSize {
			if err := w.newSection(); err != nil {
				return n, err
			}
		}
		if !ob.started {
			ob.started, ob.start, ob.offset = true, uint32(w.curIdx), uint32(w.curSize)
		}
		m := int(min(int64(len(p)), w.cfg.sectionSize-w.curSize))
		k, err := w.cur.Write(p[:m])
		n += k
		w.curSize += int64(k)
		ob.size += int64(k)
		ob.sum = crc32.Update(ob.sum, castagnoli, p[:k])
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
	if ob.expect >= 0 && ob.size != ob.expect {
		return w.fail(fmt.Errorf("pack: object written with %d bytes, declared %d: %w", ob.size, ob.expect, io.ErrShortWrite))
	}
	if !ob.started { // empty: point at the current position, as the reference does
		if w.curIdx >= 0 {
			ob.start, ob.offset = uint32(w.curIdx), uint32(w.curSize)
		}
	}
	var e [ObjectEntrySize]byte
	binary.LittleEndian.PutUint64(e[:], uint64(ob.size))
	binary.LittleEndian.PutUint32(e[8:], ob.name)
	binary.LittleEndian.PutUint32(e[12:], ob.start)
	binary.LittleEndian.PutUint32(e[16:], ob.offset)
	w.table = append(w.table, e[:]...)
	w.sums = append(w.sums, ob.sum)
	if ob.large {
		w.cur = nil // nothing shares the sections of a large object
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
	parts := make([]dataPart, len(rd.Sections))
	for i, s := range rd.Sections {
		parts[i] = dataPart{s: s, size: uint64(s.USize)}
	}
	limit := 0
	if m := w.cfg.contentSections(); m > 0 {
		limit = max(1, m-head)
	}
	pl, err := planData(parts, uint64(w.cfg.sectionSize), func(int) bool { return false }, limit)
	if err != nil {
		return err
	}
	for i := 0; i < len(w.table); i += ObjectEntrySize {
		e := w.table[i:]
		start, offset := binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:])
		if int(start) < len(parts) { // else an empty object of an empty package
			g, off := pl.pos(int(start), uint64(offset))
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
	tables := w.tableOptions()
	err = bw.WriteSection(SectionObjectTable, tables, w.table)
	if err == nil {
		err = bw.WriteSection(SectionStrings, tables, w.names.Bytes())
	}
	if err == nil && w.meta != nil {
		err = bw.WriteSection(SectionMetadata, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, w.meta)
	}
	if err == nil {
		err = bw.WriteSection(SectionDigests, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, marshalDigests(w.table, w.sums))
	}
	if err == nil {
		err = pl.write(bw, w.dataOptions())
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

// finishData finishes the last object and the temporary container of the
// data sections, and opens it; the Writer takes no more objects. The
// container stays readable until cleanup.
func (w *Writer) finishData() (*bpx.Reader, error) {
	if err := w.finishObject(); err != nil {
		return nil, err
	}
	w.obj = &objState{gen: -1}
	w.err = errors.New("pack: Writer closed")
	if _, err := w.tmpWriter(); err != nil {
		return nil, err
	}
	w.bw.SetTypeExt(w.ext.Marshal())
	w.bw.SetType(bpx.TypePackage)
	w.bwClosed = true
	if err := w.bw.Close(); err != nil {
		return nil, err
	}
	size, err := w.tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	return bpx.NewReader(w.tmp, size)
}

// dataOptions are how data sections are stored.
func (w *Writer) dataOptions() bpx.SectionOptions {
	return bpx.SectionOptions{Compression: w.cfg.compression, Checksum: w.cfg.checksum, Level: w.cfg.level, XZDictSize: int(max(4096, min(w.cfg.sectionSize, maxXZDict)))}
}

// tableOptions are how the object table and strings sections are stored.
func (w *Writer) tableOptions() bpx.SectionOptions {
	tables := bpx.SectionOptions{Checksum: bpx.ChecksumWeak}
	if w.cfg.compressTables {
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
	return opts
}

func (w *Writer) cleanup() {
	if w.bw != nil && !w.bwClosed {
		w.bwClosed = true
		w.bw.Close() // removes its spool files
	}
	if w.tmp != nil {
		w.tmp.Close()
		os.Remove(w.tmp.Name())
		w.tmp = nil
	}
	w.removeSignTemp()
}

// maxXZDict bounds the xz dictionary of data sections: the dictionary is
// the section size (so matches reach across the whole section), up to this.
const maxXZDict = 8 << 20
