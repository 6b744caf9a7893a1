package pack

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/sign"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Section types of a package (spec rev 2 §14.1).
const (
	SectionData        = 1    // object bytes
	SectionObjectTable = 2    // 20-byte object entries (revision 2)
	SectionMetadata    = 0xFE // BPXSD metadata (optional)
	SectionStrings     = 0xFF // object names
)

// Section types of a version-0 draft package.
const (
	draftSectionRegistry = 1 // AssetRegistry: {VirtualPath u32, FileId u32}
	draftSectionFile     = 2 // one asset per section
	draftSectionStrings  = 3
)

// Sizes of the package structures.
const (
	ObjectEntrySize   = 20 // revision 2 object table entry
	InlineHeaderSize  = 12 // revision 1 object header inside data sections
	draftRegistrySize = 8
)

// Object is one entry of a package's object table, as stored.
type Object struct {
	// Index is the object's position in the object table (or, for
	// revision 1, in the data stream; for the version-0 draft, in the
	// AssetRegistry).
	Index int
	// Name is the object's path as stored. It may be any string: use
	// Package.Open and the other fs.FS methods for names that are valid
	// fs paths, Package.OpenObject for every object.
	Name string
	// NameErr is set when the name pointer does not lead to a valid string
	// (then Name is empty).
	NameErr error
	// Size is the object's size in bytes.
	Size uint64
	// Start is the 0-based section-table index of the section holding the
	// object's first byte, and Offset the position of that byte in the
	// section's uncompressed data. For revision 1 they are derived from
	// the inline headers.
	Start  uint32
	Offset uint32

	pos int // position of Start in the continuation chain
}

// Package is an opened BPX package. It implements fs.FS, fs.ReadFileFS,
// fs.ReadDirFS, fs.StatFS and fs.SubFS over the objects whose names are
// valid fs paths, and gives access to every object through Objects and
// OpenObject. A Package is safe for concurrent use. Reading sections in
// order, a Package decodes the next sections in the background (see
// ObjectReader).
type Package struct {
	// Reader is the underlying container.
	Reader *bpx.Reader
	// Revision is 2 (object table), 1 (inline object headers, container
	// version 1) or 0 (the version-0 draft layout, read-only).
	Revision int
	// TypeExt is the decoded TypeExt of a revision 1 or 2 package.
	TypeExt TypeExt
	// DraftTypeExt is the decoded TypeExt of a version-0 draft package.
	DraftTypeExt DraftTypeExt

	objects  []Object
	secSize  []uint64 // decoded size of every section
	chain    []int    // revision 1: data sections in table order; nil = table order
	nextData []int32  // the next data section in table order after each section, or -1
	dataTyp  uint8    // section type that holds object data
	cfg      config
	cache    *cache
	streams  streamPool
	closer   io.Closer
	signers  []sign.PublicKey  // the trusted keys that signed it (WithTrustedKeys)
	verified *sign.Verified    // what it reads through, with WithTrustedKeys
	dig      digestState       // the object digests (SectionDigests)
	mtimes   modTimeState      // the objects' times (SectionModTimes)
	sdig     streamDigestState // the chunk digests of large stored objects (SectionStreamDigests)
	vmemo    verifyMemo        // what VerifySection reads once
	tableSum uint32            // CRC-32C of the object table, which SectionDigests names

	objErr map[int]error // structural errors found at open (version-0 FileId), by object

	pidx    atomic.Pointer[pathIndex] // the path index in use, nil if none (see SectionPathIndex)
	lazy    bool                      // the tables are read at first need (see LoadTables)
	tabOnce sync.Once
	tabErr  error
	// tablesReady is set once objects holds the tables (read at open, or
	// by load): index entries are then checked against them.
	tablesReady atomic.Bool
	idxOnce     sync.Once
	idx         *fsIndex

	cleanOnce  sync.Once
	clean      bool         // every name valid and unique, in path order
	cleanKnown atomic.Bool  // clean is computed
	scans      atomic.Int32 // lookups answered by scanName
}

// Open opens the package file name. Close the Package when done. Its
// errors name the file, as os.Open's do (an *fs.PathError): a loader
// opening many packages need not wrap them.
func Open(name string, opts ...Option) (*Package, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p, err := newReader(f, fi.Size(), opts...)
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	p.closer = f
	return p, nil
}

// NewReader opens the package in r, which is size bytes long. It reads the
// container's header and section table, the object table and the strings,
// but no object data; with WithTrustedKeys, first the signature section
// too, and from then on only bytes that match what the signer signed.
//
// Its errors name the file when r does: an *os.File (its Name) or a
// remote.File (its URL), as an *fs.PathError.
func NewReader(r io.ReaderAt, size int64, opts ...Option) (*Package, error) {
	p, err := newReader(r, size, opts...)
	if err != nil {
		if name := nameOf(r); name != "" {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return nil, err
	}
	return p, nil
}

// nameOf returns the name of the file r reads, if it tells.
func nameOf(r io.ReaderAt) string {
	switch f := r.(type) {
	case interface{ URL() string }:
		return f.URL()
	case interface{ Name() string }:
		return f.Name()
	}
	return ""
}

func newReader(r io.ReaderAt, size int64, opts ...Option) (*Package, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	_, cfg.remote = r.(interface{ URL() string })
	r, signers, err := verifyOpen(r, size, cfg)
	if err != nil {
		return nil, err
	}
	bpxOpts := cfg.bpxOpts
	if signers != nil {
		// Every byte is checked against its SHA-256 digest before it is
		// read: the weak and CRC-32 section checksums add nothing.
		bpxOpts = append(slices.Clip(bpxOpts), bpx.SkipChecksums())
	}
	rd, err := bpx.NewReader(r, size, bpxOpts...)
	if err != nil {
		return nil, err
	}
	if cfg.remote && rd.Header.Type == bpx.TypePackage {
		prefetchTables(r, size, rd)
	}
	p, err := newPackage(rd, cfg)
	if err != nil {
		return nil, err
	}
	p.signers = signers
	p.verified, _ = r.(*sign.Verified)
	return p, nil
}

// New opens the package in an already opened container. It refuses
// WithTrustedKeys (with an error matching bpx.ErrUnsupported): rd reads
// bytes that were not verified; use Open or NewReader.
func New(rd *bpx.Reader, opts ...Option) (*Package, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.trusted != nil {
		return nil, errNewTrusted
	}
	return newPackage(rd, cfg)
}

// Close waits for the section being decoded in the background (see
// ObjectReader) to be done, releases the decoders kept for reuse and closes
// the file opened by Open (not the io.ReaderAt given to NewReader or New).
func (p *Package) Close() error {
	p.cache.close()
	p.streams.mu.Lock()
	for _, st := range p.streams.idle {
		st.rc.Close()
	}
	p.streams.idle = nil
	p.streams.mu.Unlock()
	if p.closer != nil {
		return p.closer.Close()
	}
	return nil
}

// Objects returns the objects in object-table order. The slice is shared:
// do not modify it. In a package opened through its path index, it reads
// the tables first (see LoadTables), and returns nil if they cannot be
// read.
func (p *Package) Objects() []Object {
	p.load()
	return p.objects
}

// LoadTables reads the object table and the strings, if not read yet, and
// returns their error. A package with a usable path index (see
// SectionPathIndex) opens without reading them: Open, Stat, ReadFile and
// ReadDir of a path read the index's pages only, so that opening one file
// of a package of a million objects reads kilobytes, not the tens of
// megabytes of its tables. Everything else (Objects, OpenObject,
// InvalidPaths, Unpack, the checks) reads them at its first call, and
// returns their errors, or nothing (Objects, InvalidPaths): call
// LoadTables first to see the error. A package without an index reads
// them when it opens, and LoadTables returns nil.
func (p *Package) LoadTables() error { return p.load() }

// load reads the tables of a package opened through its path index.
func (p *Package) load() error {
	p.tabOnce.Do(func() {
		if p.lazy {
			p.tabErr = p.readRev2()
			p.tablesReady.Store(p.tabErr == nil)
		}
	})
	return p.tabErr
}

func newPackage(rd *bpx.Reader, cfg config) (*Package, error) {
	if rd.Header.Type != bpx.TypePackage {
		return nil, &bpx.FormatError{Offset: 3, Section: -1,
			What: fmt.Sprintf("type byte %q", rd.Header.Type), Err: ErrNotPackage}
	}
	p := &Package{Reader: rd, cfg: cfg, cache: newCache(cfg.cacheSize), dataTyp: SectionData}
	p.secSize = make([]uint64, len(rd.Sections))
	for i, s := range rd.Sections {
		p.secSize[i] = uint64(s.USize)
	}
	var err error
	switch rd.Header.Version {
	case 0:
		p.DraftTypeExt = parseDraftTypeExt(rd.Header.TypeExt)
		p.dataTyp = draftSectionFile
		err = p.readDraft()
	case 1:
		p.Revision = 1
		p.TypeExt = ParseTypeExt(rd.Header.TypeExt)
		err = p.readRev1()
	default:
		p.Revision = 2
		p.TypeExt = ParseTypeExt(rd.Header.TypeExt)
		var ix *pathIndex
		if ix, err = openPathIndex(rd, cfg); err == nil && ix != nil {
			p.pidx.Store(ix)
			p.lazy = true
			err = p.tooMany(ix.nobj)
		} else if err == nil {
			err = p.readRev2()
			p.tablesReady.Store(err == nil)
		}
	}
	if err != nil {
		return nil, err
	}
	if p.Revision > 0 && !cfg.ignoreTypeExt {
		if err := p.TypeExt.Check(); err != nil {
			return nil, err
		}
	}
	p.nextData = make([]int32, len(rd.Sections))
	next := int32(-1)
	for i := len(rd.Sections) - 1; i >= 0; i-- {
		p.nextData[i] = next
		if rd.Sections[i].Type == p.dataTyp {
			next = int32(i)
		}
	}
	p.cache.next = p.nextAhead
	return p, nil
}

// strings loads the strings section of type typ; a package without one
// has no names.
func (p *Package) strings(typ uint8, required bool) (*bpxstrings.Table, error) {
	if p.cfg.skipNames {
		return nil, nil // nameAt gives every object no name
	}
	s := p.Reader.FindSection(typ)
	if s == nil {
		if required {
			return nil, bpx.NewFormatError(0, "missing strings section (type %d)", typ)
		}
		return bpxstrings.NewTable(nil), nil
	}
	// Read into a strings.Builder, whose buffer becomes the Table's string
	// as is: one buffer, neither zeroed nor copied. That is a third of
	// what opening a package costs "bpx ls" (fresh memory is expensive).
	r, err := s.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	hint := int64(s.USize)
	if s.Compressed() {
		hint = min(hint, int64(s.CSize)*4+64<<10) // as bpx.Section.AppendData
	}
	var sb strings.Builder
	sb.Grow(int(hint))
	if _, err := io.Copy(&sb, bufio.NewReaderSize(r, p.cfg.tableReadSize(hint))); err != nil {
		return nil, err
	}
	return bpxstrings.NewTableString(sb.String()), nil
}

// nameAt returns the name at offset off of names, or no name and no error
// when the names were not read (SkipNames).
func nameAt(names *bpxstrings.Table, off uint32) (string, error) {
	if names == nil {
		return "", nil
	}
	return names.Get(off)
}

func (p *Package) tooMany(n uint64) error {
	if n > uint64(p.cfg.maxObjects) {
		return fmt.Errorf("pack: %d objects, more than the limit of %d: %w", n, p.cfg.maxObjects, bpx.ErrTooLarge)
	}
	return nil
}

// readRev2 reads the object table of a revision 2 package.
func (p *Package) readRev2() error {
	ot := p.Reader.FindSection(SectionObjectTable)
	if ot == nil {
		if len(p.Reader.Sections) == 0 {
			return nil // an empty container: an empty package
		}
		return bpx.NewFormatError(0, "version 2 package without an object table (section type 2)")
	}
	if err := p.tooMany(uint64(ot.USize) / ObjectEntrySize); err != nil {
		return err
	}
	// The strings load on another core while the table is parsed: both
	// are mostly first touches of fresh memory, which is slow.
	type loaded struct {
		names *bpxstrings.Table
		err   error
	}
	strs := make(chan loaded, 1)
	go func() {
		names, err := p.strings(SectionStrings, ot.USize >= ObjectEntrySize)
		strs <- loaded{names, err}
	}()
	terr := p.readObjectTable(ot)
	l := <-strs
	if terr != nil {
		return terr
	}
	if l.err != nil {
		return l.err
	}
	for i := range p.objects {
		o := &p.objects[i]
		o.Name, o.NameErr = nameAt(l.names, uint32(o.pos)) // the name offset, until now
		o.pos = int(o.Start)
	}
	return nil
}

// tableReadSize is the size of the reads of a table of about n bytes:
// from a remote file (package remote), up to 4 MiB, so that a large table
// comes in a few requests, each one read, rather than in blocks of 64 KiB
// and read-ahead windows (the object table and the strings, read side by
// side, make two runs the read-ahead of one file does not follow: "bpx ls"
// of a package of a million objects took 42 requests, now 16); from a
// local one, 32 KiB (fresh memory costs more than system calls).
func (c *config) tableReadSize(n int64) int {
	if !c.remote {
		return 32 << 10
	}
	return int(max(min(n, 4<<20), 32<<10))
}

// readObjectTable parses the object table into p.objects, keeping each
// name's offset in pos. The table is streamed through a small buffer
// rather than loaded whole: fresh memory is what opening a large package
// mostly costs.
func (p *Package) readObjectTable(ot *bpx.Section) error {
	r, err := ot.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	// USize is only a hint: a compressed table must produce its bytes
	// before more than 16 times its stored size is reserved (LZMA makes
	// object tables 3 to 15 times smaller: reserving 4 times, as
	// bpx.Section.AppendData does, and growing by appends allocated 4
	// times the table's objects).
	hint := int64(ot.USize)
	if ot.Compressed() {
		hint = min(hint, int64(ot.CSize)*16+64<<10)
	}
	buf := make([]byte, p.cfg.tableReadSize(hint)/ObjectEntrySize*ObjectEntrySize)
	p.objects = make([]Object, 0, hint/ObjectEntrySize)
	for {
		k, err := io.ReadFull(r, buf)
		p.tableSum = crc32.Update(p.tableSum, castagnoli, buf[:k])
		for e := buf[:k-k%ObjectEntrySize]; len(e) > 0; e = e[ObjectEntrySize:] {
			if err := p.tooMany(uint64(len(p.objects)) + 1); err != nil {
				return err
			}
			o := Object{Index: len(p.objects)}
			o.Size = binary.LittleEndian.Uint64(e)
			o.pos = int(binary.LittleEndian.Uint32(e[8:]))
			o.Start = binary.LittleEndian.Uint32(e[12:])
			o.Offset = binary.LittleEndian.Uint32(e[16:])
			p.objects = append(p.objects, o)
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			// A remainder of less than one entry is ignored, as by
			// the reference.
			if len(p.objects) == 0 {
				p.objects = nil
			}
			return nil
		case err != nil:
			return err
		}
	}
}

// readRev1 walks the data sections of a revision 1 package, whose object
// headers are inline: {u64 size, u32 name} followed by the object's bytes,
// the data sections forming one stream in table order.
func (p *Package) readRev1() error {
	for _, s := range p.Reader.Sections {
		if s.Type == SectionData {
			p.chain = append(p.chain, s.Index)
		}
	}
	names, err := p.strings(SectionStrings, len(p.chain) > 0)
	if err != nil {
		return err
	}
	// starts[i] is the stream offset of chain section i.
	starts := make([]uint64, len(p.chain)+1)
	for i, idx := range p.chain {
		starts[i+1] = starts[i] + p.secSize[idx]
	}
	total := starts[len(p.chain)]
	st := &chainStream{p: p}
	defer st.close()
	var pos uint64
	var hdr [InlineHeaderSize]byte
	for pos < total {
		if err := p.tooMany(uint64(len(p.objects)) + 1); err != nil {
			return err
		}
		if total-pos < InlineHeaderSize {
			return p.chainError(starts, pos, "truncated inline object header (%d bytes left)", total-pos)
		}
		if _, err := io.ReadFull(st, hdr[:]); err != nil {
			return err
		}
		o := Object{Index: len(p.objects), Size: binary.LittleEndian.Uint64(hdr[:])}
		o.Name, o.NameErr = nameAt(names, binary.LittleEndian.Uint32(hdr[8:]))
		pos += InlineHeaderSize
		o.pos = chainPos(starts, pos)
		if o.pos < len(p.chain) {
			o.Start, o.Offset = uint32(p.chain[o.pos]), uint32(pos-starts[o.pos])
		} else if len(p.chain) > 0 { // an empty object at the very end
			o.pos = len(p.chain) - 1
			o.Start, o.Offset = uint32(p.chain[o.pos]), uint32(p.secSize[p.chain[o.pos]])
		}
		p.objects = append(p.objects, o)
		if o.Size > total-pos {
			break // the object runs past the data: reading it reports the error
		}
		if err := st.skip(int64(o.Size)); err != nil {
			return err
		}
		pos += o.Size
	}
	return nil
}

// chainPos returns the index of the chain section holding stream offset pos
// (the first non-empty one when pos is a boundary).
func chainPos(starts []uint64, pos uint64) int {
	lo, hi := 0, len(starts)-1
	for lo < hi { // last i with starts[i] <= pos, then skip empty sections
		m := int(uint(lo+hi+1) >> 1)
		if starts[m] <= pos {
			lo = m
		} else {
			hi = m - 1
		}
	}
	for lo < len(starts)-1 && starts[lo+1] == pos {
		lo++
	}
	return lo
}

func (p *Package) chainError(starts []uint64, pos uint64, format string, args ...any) error {
	i := chainPos(starts, pos)
	if i >= len(p.chain) {
		i = len(p.chain) - 1
	}
	return &bpx.FormatError{Offset: int64(pos - starts[i]), Section: p.chain[i], What: fmt.Sprintf(format, args...)}
}

// chainStream reads the revision 1 data sections as one stream.
type chainStream struct {
	p   *Package
	i   int
	cur io.ReadCloser
}

func (c *chainStream) Read(b []byte) (int, error) {
	for {
		if c.cur == nil {
			if c.i >= len(c.p.chain) {
				return 0, io.ErrUnexpectedEOF
			}
			r, err := c.p.Reader.Sections[c.p.chain[c.i]].Open()
			if err != nil {
				return 0, err
			}
			c.cur = r
			c.i++
		}
		n, err := c.cur.Read(b)
		if err == io.EOF {
			c.cur.Close()
			c.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (c *chainStream) skip(n int64) error {
	_, err := io.CopyN(io.Discard, c, n)
	return err
}

func (c *chainStream) close() {
	if c.cur != nil {
		c.cur.Close()
	}
}

// readDraft reads a version-0 draft package: an AssetRegistry of
// {VirtualPath, FileId} entries, one File section per asset. FileId is a
// position in the section table, which the draft numbers from 1 (0 means
// no section).
func (p *Package) readDraft() error {
	reg := p.Reader.FindSection(draftSectionRegistry)
	if reg == nil {
		if len(p.Reader.Sections) == 0 {
			return nil
		}
		return bpx.NewFormatError(0, "version-0 package without an AssetRegistry (section type 1)")
	}
	table, err := reg.Data()
	if err != nil {
		return err
	}
	n := len(table) / draftRegistrySize
	if err := p.tooMany(uint64(n)); err != nil {
		return err
	}
	names, err := p.strings(draftSectionStrings, n > 0)
	if err != nil {
		return err
	}
	p.objects = make([]Object, n)
	for i := range p.objects {
		e := table[i*draftRegistrySize:]
		o := &p.objects[i]
		o.Index = i
		o.Name, o.NameErr = nameAt(names, binary.LittleEndian.Uint32(e))
		id := binary.LittleEndian.Uint32(e[4:])
		o.Start = id - 1
		o.pos = int(o.Start)
		if id == 0 || int64(id) > int64(len(p.Reader.Sections)) {
			o.Start, o.pos = ^uint32(0), -1
			if p.objErr == nil {
				p.objErr = map[int]error{}
			}
			p.objErr[i] = &ObjectError{Index: i, Name: o.Name, Err: ErrObjectRange,
				What: fmt.Sprintf("FileId %d names no section (the table has %d, numbered from 1)", id, len(p.Reader.Sections))}
			continue
		}
		s := p.Reader.Sections[o.Start]
		if s.Flags&bpx.FlagZlib != 0 && s.USize == 0 && p.secSize[o.Start] == 0 {
			size, err := measure(s)
			if err != nil {
				return err
			}
			p.secSize[o.Start] = size
		}
		o.Size = p.secSize[o.Start]
	}
	return nil
}

// measure decodes s to learn its size (version-0 zlib sections do not
// store it).
func measure(s *bpx.Section) (uint64, error) {
	r, err := s.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	return uint64(n), err
}

// Metadata decodes the package's metadata: the first BPXSD object of the
// first metadata section (the reference SDK writes it twice). It returns
// (nil, nil) when the package has no metadata section.
func (p *Package) Metadata() (*sd.Object, error) {
	data, err := p.metadataBytes()
	if data == nil || err != nil {
		return nil, err
	}
	return sd.Decode(data)
}

// UnmarshalMetadata decodes the package's metadata into v as sd.Unmarshal
// does. A package without metadata leaves v unchanged.
func (p *Package) UnmarshalMetadata(v any) error {
	data, err := p.metadataBytes()
	if data == nil || err != nil {
		return err
	}
	return sd.Unmarshal(data, v)
}

func (p *Package) metadataBytes() ([]byte, error) {
	if p.Revision == 0 {
		return nil, nil
	}
	s := p.Reader.FindSection(SectionMetadata)
	if s == nil {
		return nil, nil
	}
	data, err := s.Data()
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// errClosed is returned by readers used after Close.
var errClosed = errors.New("pack: object reader closed")
