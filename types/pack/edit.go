package pack

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/sign"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Editor changes an existing package and writes the result, in the style of
// Writer and bpx.Rewrite: Create adds or replaces an object, Remove and
// Rename remove and rename objects or whole directories, and Close writes
// the edited package to the destination.
//
// Close copies every data section that still holds a live object byte for
// byte, without decompressing or recompressing it (but those it joins, see
// below), writes new and replaced objects into new data sections after
// them (compressed as the
// WriterOptions given to NewEditor ask, xz by default; AddFS stores a
// file identical to another file it adds once, and one it finds identical
// to an object kept not at all: the objects share the bytes), and
// rewrites the
// object table, the strings and, if it changed, the metadata. Data sections
// that no object uses any more are dropped; replaced and removed objects
// elsewhere leave dead bytes behind (Package.DeadBytes counts them) unless
// Compact is called, which re-encodes just the sections that hold dead
// bytes, without them, and joins neighbouring data sections that together
// fit the section size.
//
// The result keeps within the section limit (WithMaxSections, see
// Writer): Close joins the new data to the source's last data section when
// that holds less than an eighth of the section size (so that a run of
// small edits fills one section rather than adding one each), and joins
// the smallest neighbouring data sections while the package would have
// more sections than the limit. Joined sections are decoded and encoded
// again with the Editor's options.
//
// Only revision 2 packages (container version 2, with an object table) can
// be edited; Unpack and a Writer repack the others. Objects whose names are
// not valid fs paths (see Package.InvalidPaths) are kept as they are and
// cannot be addressed by name. Sections of other types than the object
// table, strings, metadata, data and signature (sign.SectionType, see
// Close) are untouched: Close copies them byte for byte, in their order,
// after the data sections (which stay contiguous, spec §14.1). A package with more than one object table,
// strings or metadata section cannot be edited (the edit rewrites those,
// and would drop the others). An Editor is not safe for concurrent use; the
// source Package must stay open until Close returns. Always call Close: it
// also removes the temporary files.
type Editor struct {
	src *Package
	nw  *Writer // the data sections of new objects
	err error

	files map[string]editEntry // valid names: the objects of the result
	refs  []int32              // number of files of each source object (see priorObjects)
	dirs  map[string]int       // directory -> number of files below it
	keep  []int                // base objects with invalid names, kept as they are

	meta        bool // the metadata changed (held by nw)
	ext         TypeExt
	compact     bool
	recompress  bool
	signRemoved bool // see SignatureRemoved
}

// editEntry is one object of the edited package: an object of the source
// package (base >= 0) or a new one written through nw (fresh >= 0, its
// entry in nw's table). Writer.AddFS knows its objects so too (fresh).
type editEntry struct {
	base, fresh int
	timed       bool  // mtime is the file's time, not its entry's
	mtime       int64 // see SectionModTimes
}

// ErrNotEditable is returned by NewEditor (through the Editor's calls) for a
// package that is not revision 2, whose object table is damaged, or whose
// path index gives other files than its tables (see VerifyStructure). It
// matches bpx.ErrUnsupported or bpx.ErrFormat, as the cause is.
var ErrNotEditable = errors.New("pack: package cannot be edited")

// NewEditor returns an Editor of the package src that writes the edited
// package to dst when Close is called. opts configure the new data
// sections as for NewWriter; the tables stay raw if src's are (an object
// table of more than 64 KiB stored raw, without a path index: a package
// written WithRawTables, or before tables were compressed by default), and
// a package with a path index gets a new one (see SectionPathIndex) unless
// WithPathIndex(false). A src that cannot be edited, or an option out of
// range, makes every call of the Editor fail with the error.
func NewEditor(dst io.Writer, src *Package, opts ...WriterOption) *Editor {
	e := &Editor{src: src, files: map[string]editEntry{}, dirs: map[string]int{}, ext: src.TypeExt}
	e.nw = NewWriter(dst, opts...)
	e.nw.cfg.allowInvalidNames = true // the Editor checks names itself
	if t := src.Reader.FindSection(SectionObjectTable); t != nil && !t.Compressed() && t.USize > tableThreshold && src.Reader.FindSection(SectionPathIndex) == nil {
		e.nw.cfg.rawTables = true // as the package was made
	}
	if src.Reader.FindSection(SectionPathIndex) != nil && e.nw.cfg.pathIndex == 0 {
		e.nw.cfg.pathIndex = 1 // a package with an index keeps one (WithPathIndex(false) drops it)
	}
	if src.Reader.FindSection(SectionChunkDigests) != nil && e.nw.cfg.chunkDigests == 0 {
		e.nw.cfg.chunkDigests = 1 // so do chunk digests (WithChunkDigests(false) drops them)
	}
	if e.nw.err != nil {
		e.err = e.nw.err
		return e
	}
	e.err = e.load()
	return e
}

// load checks the source and indexes its objects by name.
func (e *Editor) load() error {
	p := e.src
	if p.Revision != 2 {
		return fmt.Errorf("%w: revision %d package (only revision 2 can be edited; repack it): %w", ErrNotEditable, p.Revision, bpx.ErrUnsupported)
	}
	if err := p.load(); err != nil {
		return fmt.Errorf("%w: %w", ErrNotEditable, err)
	}
	if err := p.checkSpans(false); err != nil {
		return fmt.Errorf("%w: %w", ErrNotEditable, err)
	}
	if err := checkSingleSections(p.Reader); err != nil {
		return err
	}
	// The edit writes a new index from the tables: one that gives other
	// files than they do is not carried over, nor passed over in silence.
	if err := p.checkPathIndex(); err != nil {
		return fmt.Errorf("%w: %w", ErrNotEditable, err)
	}
	for i := range p.objects {
		if o := &p.objects[i]; o.NameErr != nil {
			return fmt.Errorf("%w: object %d: %w", ErrNotEditable, i, o.NameErr)
		}
	}
	bad := p.InvalidPaths()
	e.refs = make([]int32, len(p.objects))
	// Sized at once: growing a map of a million names rehashes it 20
	// times.
	e.files = make(map[string]editEntry, len(p.objects)-len(bad))
	for i := range p.objects {
		if _, ok := bad[i]; ok {
			e.keep = append(e.keep, i)
			continue
		}
		e.add(p.objects[i].Name, editEntry{base: i, fresh: -1})
	}
	return nil
}

// checkSingleSections refuses a package with a second object table,
// strings or metadata section: the spec allows one of each, a reader takes
// the first, and the edit would rewrite the first and drop the others.
func checkSingleSections(rd *bpx.Reader) error {
	first := map[uint8]int{}
	for i, s := range rd.Sections {
		name, single := singleSectionNames[s.Type]
		if !single {
			continue
		}
		if j, ok := first[s.Type]; ok {
			return fmt.Errorf("%w: sections %d and %d are both of type %#x (%s), which a package holds once; editing would drop the second: %w",
				ErrNotEditable, j, i, s.Type, name, bpx.ErrUnsupported)
		}
		first[s.Type] = i
	}
	return nil
}

// singleSectionNames names the section types a package holds once.
var singleSectionNames = map[uint8]string{SectionObjectTable: "object table", SectionStrings: "strings", SectionMetadata: "metadata"}

// isPackageSection reports whether t is a section type that the Editor
// writes itself; the others it copies as they are.
func isPackageSection(t uint8) bool {
	return t == SectionData || t == SectionObjectTable || t == SectionStrings || t == SectionMetadata || t == SectionDigests || t == SectionPathIndex || t == SectionChunkDigests || t == SectionModTimes || t == SectionStreamDigests
}

// add records a file, counting it in its parent directories. Objects kept
// verbatim under the same name (duplicates) go: the name is now this
// file's.
func (e *Editor) add(name string, en editEntry) {
	if len(e.keep) > 0 {
		e.keep = slices.DeleteFunc(e.keep, func(i int) bool { return e.src.objects[i].Name == name })
	}
	e.files[name] = en
	if en.base >= 0 {
		e.refs[en.base]++
	}
	for d := name; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return
		}
		d = d[:i]
		e.dirs[d]++
	}
}

// drop removes the file name.
func (e *Editor) drop(name string) {
	if en, ok := e.files[name]; ok && en.base >= 0 {
		e.refs[en.base]--
	}
	delete(e.files, name)
	for d := name; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return
		}
		d = d[:i]
		if e.dirs[d]--; e.dirs[d] == 0 {
			delete(e.dirs, d)
		}
	}
}

func checkName(op, name string) error {
	if name == "." || !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: ErrInsecurePath}
	}
	return nil
}

// placeable reports why the file name cannot be added: a directory of that
// name, or a file where one of its parent directories would be.
func (e *Editor) placeable(op, name string) error {
	if e.dirs[name] > 0 {
		return &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("a directory of that name exists: %w", fs.ErrExist)}
	}
	for d := name; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return nil
		}
		d = d[:i]
		if _, ok := e.files[d]; ok {
			return &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%s is a file: %w", d, fs.ErrExist)}
		}
	}
}

// Create adds an object named name and returns the writer of its bytes,
// valid until the next Create, CreateSized, AddFS or Close. An object of
// that name is replaced. The name must be a valid fs path, and neither a
// directory of the package nor below one of its files: remove those first.
func (e *Editor) Create(name string) (io.Writer, error) { return e.create(name, -1, classUnknown) }

// CreateSized is Create for an object of known size: exactly size bytes
// must be written.
func (e *Editor) CreateSized(name string, size int64) (io.Writer, error) {
	if size < 0 {
		return nil, errors.New("pack: negative object size")
	}
	return e.create(name, size, classUnknown)
}

func (e *Editor) create(name string, size int64, c objClass) (io.Writer, error) {
	if err := e.creatable(name); err != nil {
		return nil, err
	}
	w, err := e.nw.create(name, size, c)
	if err != nil {
		e.err = err
		return nil, err
	}
	e.put(name, editEntry{base: -1, fresh: len(e.nw.table) / ObjectEntrySize})
	return w, nil
}

// creatable reports why an object name cannot be created.
func (e *Editor) creatable(name string) error {
	if e.err != nil {
		return e.err
	}
	if err := checkName("create", name); err != nil {
		return err
	}
	return e.placeable("create", name)
}

// put makes en the file name, replacing the file of that name.
func (e *Editor) put(name string, en editEntry) {
	if _, ok := e.files[name]; ok {
		e.drop(name)
	}
	e.add(name, en)
}

// Remove removes the object name or, if name is a directory, every object
// below it. A name that is neither is an error matching fs.ErrNotExist.
func (e *Editor) Remove(name string) error {
	if e.err != nil {
		return e.err
	}
	if err := checkName("remove", name); err != nil {
		return err
	}
	if _, ok := e.files[name]; ok {
		e.drop(name)
		return nil
	}
	if e.dirs[name] == 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	for _, f := range e.below(name) {
		e.drop(f)
	}
	return nil
}

// below returns the files below the directory dir.
func (e *Editor) below(dir string) []string {
	var names []string
	for f := range e.files {
		if len(f) > len(dir) && f[len(dir)] == '/' && strings.HasPrefix(f, dir) {
			names = append(names, f)
		}
	}
	return names
}

// Rename renames the object or directory oldname to newname. newname must
// not exist, nor lie below oldname or below a file; a missing oldname is
// an error matching fs.ErrNotExist.
func (e *Editor) Rename(oldname, newname string) error {
	if e.err != nil {
		return e.err
	}
	for _, n := range []string{oldname, newname} {
		if err := checkName("rename", n); err != nil {
			return err
		}
	}
	en, isFile := e.files[oldname]
	if !isFile && e.dirs[oldname] == 0 {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	if _, ok := e.files[newname]; ok || e.dirs[newname] > 0 {
		return &fs.PathError{Op: "rename", Path: newname, Err: fs.ErrExist}
	}
	if oldname == newname || strings.HasPrefix(newname, oldname+"/") {
		return &fs.PathError{Op: "rename", Path: newname, Err: fmt.Errorf("inside %s: %w", oldname, fs.ErrInvalid)}
	}
	if isFile {
		e.drop(oldname)
		if err := e.placeable("rename", newname); err != nil {
			e.add(oldname, en)
			return err
		}
		e.add(newname, en)
		return nil
	}
	names := e.below(oldname)
	moved := make([]editEntry, len(names))
	for i, f := range names {
		moved[i] = e.files[f]
		e.drop(f)
	}
	if err := e.placeable("rename", newname); err != nil {
		for i, f := range names {
			e.add(f, moved[i])
		}
		return err
	}
	for i, f := range names {
		e.add(newname+f[len(oldname):], moved[i])
	}
	return nil
}

// SetMetadata replaces the metadata object; nil removes it. Without a call,
// the source's metadata section is copied as it is.
func (e *Editor) SetMetadata(o *sd.Object) error {
	if err := e.nw.SetMetadata(o); err != nil {
		return err
	}
	e.meta = true
	return nil
}

// SetMetadataValue replaces the metadata with a Go value encoded with
// sd.Marshal.
func (e *Editor) SetMetadataValue(v any) error {
	if err := e.nw.SetMetadataValue(v); err != nil {
		return err
	}
	e.meta = true
	return nil
}

// SetTypeExt sets the package's TypeExt (by default the source's).
func (e *Editor) SetTypeExt(t TypeExt) { e.ext = t }

// Compact makes Close re-encode the data sections that hold dead bytes
// with only their live bytes, so that the result has none. Sections
// without dead bytes are still copied as they are.
func (e *Editor) Compact() { e.compact = true }

// Recompress makes Close re-encode every data section, with the options
// given to NewEditor, keeping only its live bytes: to change the
// compression of a whole package without unpacking it.
func (e *Editor) Recompress() { e.compact, e.recompress = true, true }

// Close writes the edited package to the destination given to NewEditor,
// which it does not close, and removes the temporary files. The source's
// signature section is never copied: with WithSigningKey the result is
// signed anew, else it is unsigned (SignatureRemoved then reports that the
// source was signed).
func (e *Editor) Close() error {
	defer e.nw.cleanup()
	if e.err != nil {
		return e.err
	}
	e.err = errors.New("pack: Editor closed")
	p := e.src
	// The objects of the result: valid names in path order (so that the
	// package opens with the fast path for clean names), then the objects
	// kept as they are.
	names, ents := e.sortedFiles()

	// Which source sections survive, and which objects must move.
	use := make([]uint64, len(p.Reader.Sections))
	var baseObjs []int
	for _, en := range ents {
		if en.base >= 0 {
			baseObjs = append(baseObjs, en.base)
		}
	}
	baseObjs = append(baseObjs, e.keep...)
	// The first segment of each object kept (none: an empty object), in
	// one slice: a slice or map entry per object cost a million
	// allocations in a package of a million objects.
	first := make([]segment, len(p.objects))
	live := make([]squeeze, len(p.Reader.Sections))
	for _, i := range baseObjs {
		first[i] = segment{n: 0}
		err := p.walkSegments(&p.objects[i], func(sg segment) error {
			if first[i].n == 0 {
				first[i] = sg
			}
			live[sg.sec].add(sg)
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i := range live {
		live[i].merge()
		use[i] = live[i].size()
	}
	drop := make([]bool, len(p.Reader.Sections))
	for i, s := range p.Reader.Sections {
		drop[i] = s.Type == SectionData && use[i] == 0
	}
	rdNew, err := e.nw.finishData()
	if err != nil {
		return err
	}

	// The new section table: tables, metadata, the data sections (the
	// surviving source data sections in their order, then the new ones,
	// some joined: see planData), the source's sections of other types in
	// their order.
	srcMeta := p.Reader.FindSection(SectionMetadata)
	head := 2
	if (e.meta && e.nw.meta != nil) || (!e.meta && srcMeta != nil) {
		head = 3
	}
	// The object digests carry over when the source has usable ones:
	// without them, the edited package goes without too (the Editor
	// does not decode objects it keeps only to digest them).
	srcSums := p.digests()
	withSums := srcSums != nil || len(p.objects) == 0
	if withSums {
		head++
	}
	// The path index is made anew, when the tables will be large enough
	// (the strings may share repeated names: this counts them all).
	tableBytes := (len(names) + len(e.keep)) * ObjectEntrySize
	for _, n := range names {
		tableBytes += len(n) + 1
	}
	for _, i := range e.keep {
		tableBytes += len(p.objects[i].Name) + 1
	}
	var files []indexFile
	indexed := e.nw.cfg.wantIndex(tableBytes)
	if indexed {
		files, indexed = indexFiles(len(names)+len(e.keep), func(i int) (string, bool) {
			if i < len(names) {
				return names[i], true
			}
			o := &p.objects[e.keep[i-len(names)]]
			return o.Name, o.NameErr == nil
		})
	}
	if indexed {
		head++
	}
	// The times follow the digests when an object of the result may have
	// one (if none has after all, the plan counted one section too many).
	srcTimes := p.modTimes()
	withTimes := anyTime(srcTimes) || anyTime(e.nw.times)
	for _, en := range ents {
		withTimes = withTimes || en.timed && en.mtime != noTime
	}
	if withTimes {
		head++
	}
	streamSums := e.streamSums(baseObjs, srcSums)
	if streamSums != nil {
		head++ // after the times
	}
	// With Compact, sections holding dead bytes keep only their live
	// ranges: an object continuing from the previous section still starts
	// at offset 0 and one continuing into the next still ends at the end,
	// so only objects starting in such a section get new offsets.
	partOf := make([]int, len(p.Reader.Sections))
	var parts []dataPart
	var foreign []*bpx.Section
	for i, s := range p.Reader.Sections {
		switch {
		case s.Type == SectionData && !drop[i]:
			partOf[i] = len(parts)
			// A raw source section holds bytes that did not compress: it
			// stays stored, unless everything is compressed anew or it
			// is small (a few objects that compress together with
			// others, such as the one a small edit wrote).
			stored := !s.Compressed() && s.USize >= sampleSize && !e.recompress
			pt := dataPart{s: s, size: p.secSize[i], stored: stored}
			if e.compact && (use[i] < p.secSize[i] || e.recompress) {
				pt.sq, pt.size = &live[i], use[i]
			}
			parts = append(parts, pt)
		case s.Type == sign.SectionType:
			// A signature of the source never carries over: it would
			// not match the edited package (see SignatureRemoved).
		case !isPackageSection(s.Type):
			foreign = append(foreign, s)
		}
	}
	kept := len(parts)
	newParts, newPartOf := dataParts(rdNew)
	parts = append(parts, newParts...)
	sec := uint64(e.nw.cfg.sectionSize)
	join := func(i int) bool {
		if e.compact {
			return true // repack: neighbours that fit a section share one
		}
		// The new data, and a small last section of the source before it.
		return i+1 >= kept && (i >= kept || parts[i].size < sec/tailJoin)
	}
	var dataSize uint64
	for _, pt := range parts {
		dataSize += pt.size
	}
	chunks := e.nw.cfg.wantChunks(dataSize)
	tail := len(foreign)
	if chunks {
		tail++
	}

	limit := 0
	if m := e.nw.cfg.contentSections(); m > 0 {
		if limit = m - head - tail; limit < 1 && (limit < 0 || len(parts) > 0) {
			return fmt.Errorf("pack: the package keeps %d sections of other types besides its tables, more than the section limit %d allows (WithMaxSections): %w", len(foreign), m, bpx.ErrTooLarge)
		}
	}
	pl, err := planData(parts, e.nw.cfg.planSizes(), join, limit)
	if err != nil {
		return err
	}

	var strs bpxstrings.Builder
	table := make([]byte, 0, (len(names)+len(e.keep))*ObjectEntrySize)
	var sums []uint32
	var times []int64
	// The valid names are distinct (they key e.files): no index of them.
	strs.Grow(tableBytes - (len(names)+len(e.keep))*ObjectEntrySize)
	entry := func(name string, size uint64, start, offset uint32, sum uint32, mtime int64) error {
		add := strs.AddNew
		if len(table)/ObjectEntrySize >= len(names) {
			add = strs.Add // the objects kept as they are, whose names may repeat
		}
		off, err := add(name)
		if err != nil {
			return err
		}
		sums = append(sums, sum)
		times = append(times, mtime)
		table = binary.LittleEndian.AppendUint64(table, size)
		table = binary.LittleEndian.AppendUint32(table, off)
		table = binary.LittleEndian.AppendUint32(table, start)
		table = binary.LittleEndian.AppendUint32(table, offset)
		return nil
	}
	// at returns the table position of byte off of data part i.
	at := func(i int, off uint64) (uint32, uint32) {
		g, o := pl.pos(i, off)
		return uint32(head + g), uint32(o)
	}
	baseEntry := func(name string, i int, mtime int64, timed bool) error {
		o := &p.objects[i]
		start, offset := uint32(head), uint32(0) // an empty object points anywhere valid
		if sg := &first[i]; sg.n > 0 {
			// The first segment's own offset: it differs from Offset
			// when the object starts at the very end of a section.
			start, offset = at(partOf[sg.sec], sg.off)
		} else if int(o.Start) < len(p.Reader.Sections) && p.Reader.Sections[o.Start].Type == SectionData && !drop[o.Start] {
			start, _ = at(partOf[o.Start], 0)
		}
		var sum uint32
		if srcSums != nil {
			sum = srcSums[i]
		}
		if !timed {
			mtime = noTime
			if srcTimes != nil {
				mtime = srcTimes[i]
			}
		}
		return entry(name, o.Size, start, offset, sum, mtime)
	}
	for k, n := range names {
		en := ents[k]
		var err error
		if en.fresh >= 0 {
			f := e.nw.table[en.fresh*ObjectEntrySize:]
			start, offset := uint32(head), uint32(0)
			if idx := int(binary.LittleEndian.Uint32(f[12:])); idx < len(rdNew) {
				start, offset = at(kept+newPartOf[idx], uint64(binary.LittleEndian.Uint32(f[16:])))
			}
			mtime := e.nw.times[en.fresh]
			if en.timed {
				mtime = en.mtime
			}
			err = entry(n, binary.LittleEndian.Uint64(f), start, offset, e.nw.sums[en.fresh], mtime)
		} else {
			err = baseEntry(n, en.base, en.mtime, en.timed)
		}
		if err != nil {
			return err
		}
	}
	for _, i := range e.keep {
		if err := baseEntry(p.objects[i].Name, i, 0, false); err != nil {
			return err
		}
	}

	out, err := e.nw.output()
	if err != nil {
		return err
	}
	opts := e.nw.rewriteOptions()
	if p.Reader.Header.Version == bpx.VersionZstd {
		// Its sections, copied, may carry the standard CRC-32.
		opts = append(opts, bpx.WithVersion(bpx.VersionZstd))
	}
	bw := bpx.NewWriter(out, opts...)
	bw.SetType(bpx.TypePackage)
	bw.SetTypeExt(e.ext.Marshal())
	tables := e.nw.tableOptions(indexed)
	if indexed {
		var isums []uint32
		if withSums {
			isums = sums
		}
		err = bw.WriteSection(SectionPathIndex, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, makePathIndex(files, table, strs.Bytes(), isums, tables.Checksum))
	}
	if err == nil {
		err = bw.WriteSection(SectionObjectTable, tables, table)
	}
	if err == nil {
		err = bw.WriteSection(SectionStrings, tables, strs.Bytes())
	}
	switch {
	case err != nil:
	case e.meta && e.nw.meta != nil:
		err = bw.WriteSection(SectionMetadata, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, e.nw.meta)
	case !e.meta && srcMeta != nil:
		err = bw.CopySection(srcMeta)
	}
	if err == nil && withSums {
		err = bw.WriteSection(SectionDigests, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, marshalDigests(table, sums))
	}
	if err == nil && withTimes {
		err = bw.WriteSection(SectionModTimes, tables, marshalModTimes(table, times))
	}
	if err == nil && streamSums != nil {
		err = bw.WriteSection(SectionStreamDigests, streamDigestOptions, streamSums)
	}
	if err == nil {
		err = pl.write(bw, e.nw.dataOptions())
	}
	for _, s := range foreign {
		if err != nil {
			break
		}
		err = bw.CopySection(s)
	}
	if err == nil && chunks {
		err = writeChunkDigests(bw, objectBytes(table), p)
	}
	if err != nil {
		bw.Abort(err) // write nothing of a failed edit
		return err
	}
	if err := bw.Close(); err != nil {
		return err
	}
	if err := e.nw.finishOutput(); err != nil {
		return err
	}
	e.signRemoved = isSigned(p.Reader) && len(e.nw.cfg.signKeys) == 0
	return nil
}

// streamSums returns the SectionStreamDigests of the result, or nil: the
// entries of the objects the Writer wrote for the edit, and the source's
// entries of the source objects base that the result keeps (an entry
// names bytes by their digest and size, wherever they end up), when the
// source's chunks are the Writer's size (another writer's are dropped).
func (e *Editor) streamSums(base []int, srcSums []uint32) []byte {
	ss := streamSums{keys: slices.Clone(e.nw.chunks.keys), sums: slices.Clone(e.nw.chunks.sums)}
	if l := e.src.streamList(); l != nil && srcSums != nil && l.log == streamChunkLog {
		for _, i := range base {
			k := streamKey{srcSums[i], e.src.objects[i].Size}
			if d := l.lookup(k); d != nil {
				sums := make([]uint32, len(d)/streamDigestSize)
				for j := range sums {
					sums[j] = binary.LittleEndian.Uint32(d[j*streamDigestSize:])
				}
				ss.add(k, sums)
			}
		}
	}
	return ss.marshal()
}

// sortedFiles returns the names of the files of the result in path order,
// and their entries. The names of a clean source (see cleanNames) are in
// that order already: those it keeps, in its order, are merged with the
// others (added, renamed), which alone are sorted: sorting a million
// names took half a second of an edit of one.
func (e *Editor) sortedFiles() ([]string, []editEntry) {
	p := e.src
	cmp := func(a, b string) int { return cmpPath(a, b) }
	var rest []string // the names sorted here
	clean := p.isClean()
	for n, en := range e.files {
		if !clean || en.base < 0 || p.objects[en.base].Name != n {
			rest = append(rest, n)
		}
	}
	slices.SortFunc(rest, cmp)
	names := make([]string, 0, len(e.files))
	ents := make([]editEntry, 0, len(e.files))
	add := func(n string, en editEntry) {
		names = append(names, n)
		ents = append(ents, en)
	}
	r := 0
	if clean {
		for i := range p.objects {
			n := p.objects[i].Name
			en, ok := e.files[n]
			if !ok || en.base != i {
				continue
			}
			for r < len(rest) && cmpPath(rest[r], n) < 0 {
				add(rest[r], e.files[rest[r]])
				r++
			}
			add(n, en)
		}
	}
	for ; r < len(rest); r++ {
		add(rest[r], e.files[rest[r]])
	}
	return names, ents
}

// squeeze is the compaction of one data section: the byte ranges that
// objects use, sorted and merged. Objects that share bytes (see
// Writer.AddFS) add the same range more than once; merge counts it once.
type squeeze struct {
	live [][2]uint64
}

// add records the range of sg.
func (sq *squeeze) add(sg segment) {
	sq.live = append(sq.live, [2]uint64{sg.off, sg.off + sg.n})
}

// size returns how many bytes the merged ranges cover.
func (sq *squeeze) size() uint64 {
	var n uint64
	for _, r := range sq.live {
		n += r[1] - r[0]
	}
	return n
}

func (sq *squeeze) merge() {
	slices.SortFunc(sq.live, func(a, b [2]uint64) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	out := sq.live[:0]
	for _, r := range sq.live {
		if n := len(out); n > 0 && r[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	sq.live = out
}

// shift returns where the live byte at off lands once the dead bytes are
// cut out.
func (sq *squeeze) shift(off uint64) uint64 {
	var dead, end uint64
	for _, r := range sq.live {
		if r[0] > off {
			break
		}
		dead += r[0] - end
		end = r[1]
	}
	return off - dead
}

// EditFile edits the package file name in place: it opens it, lets edit
// change it through an Editor and replaces the file atomically with the
// result (bpx.SaveFile). If edit or any step fails, the file is left as it
// was. opts configure the new data sections as for NewWriter.
//
// Two edits of one file at once do not lose one: where the system has
// advisory locks (flock: Linux, macOS, the BSDs) the second waits for the
// first, holding a lock on the package file, and then fails with
// ErrChanged because the file was replaced; elsewhere, the edit that
// saves second fails so. An edit also fails with ErrChanged if the file
// was replaced or written by anything else while it ran; the file is then
// left as the other writer left it.
func EditFile(name string, edit func(e *Editor) error, opts ...WriterOption) error {
	return editFile(name, name, edit, nil, opts)
}

// EditFileTo is EditFile writing the result to the file out instead
// (replaced atomically); the package file name is not changed. If out is
// name, or the file name leads to through symbolic links, the edit is
// in place and guarded against concurrent edits as EditFile is.
func EditFileTo(name, out string, edit func(e *Editor) error, opts ...WriterOption) error {
	return editFile(name, out, edit, nil, opts)
}

// editFile is EditFile; wrap, if set, wraps the destination (tests inject
// write failures with it).
func editFile(name, out string, edit func(e *Editor) error, wrap func(io.Writer) io.Writer, opts []WriterOption) error {
	g, err := guardEdit(name, out)
	if err != nil {
		return err
	}
	defer g.release()
	p, err := Open(name)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := g.check(); err != nil { // replaced between locking and opening
		return err
	}
	return bpx.SaveFileCheck(out, func(w io.Writer) error {
		if wrap != nil {
			w = wrap(w)
		}
		ed := NewEditor(w, p, opts...)
		defer ed.nw.cleanup() // also if edit panics; twice is harmless
		if err := edit(ed); err != nil {
			return err
		}
		return ed.Close()
	}, g.check)
}
