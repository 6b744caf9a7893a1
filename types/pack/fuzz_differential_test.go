package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/xzdec"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sign"
)

// FuzzDifferential is issue 41's goal 4: one file, one truth. The input
// chooses one of a few packages made by the Writer (makeDiffBases) and
// mutations aimed at the accelerators beside its object table: the path
// index (fields of its entries, or raw bytes with its CRC-32Cs fixed up),
// the xz index of a section of blocks (record sizes moved from one block
// to the next, or raw bytes, its CRC32 recomputed), SectionDigests, the
// object table, the chunk digests; whether the result is signed (read
// with WithTrustedKeys, where no digest is checked); the small cache
// size; and an order of reads on a shared Package, which may poison its
// caches for the reads after.
//
// Every name and every object is then read through every path: fs.FS
// (ReadFile, Open with plain Reads, with WriteTo, ReadAt at a few offsets,
// Seek and Read), ReadObject and OpenObject by the row the tables give the
// name, and Unpack read back from disk; at a small cache and the default
// one. ReadFile and ReadObject each read every key through a fresh
// Package; one shared Package takes the input's order of reads, then
// reads every key by ReadFile, plain Reads and ReadObject, then (a bit of
// the input) unpacks. No input may panic or hang a reader, and for each
// name every read that succeeds must give the same bytes.
//
// The shared Package of the small cache is also read through an
// overlay.FS (ReadFile, and Open and a Read), over an empty layer.
//
// Fuzz it with TMPDIR on a tmpfs (Unpack's files) and a short
// -fuzzminimizetime: inputs that find new coverage are minimized for 60
// seconds each by default, which early on is most of the time.
func FuzzDifferential(f *testing.F) {
	bases := loadDiffBases(f)
	for i := range bases {
		f.Add(uint8(i), uint8(diffUnpack), []byte(nil), []byte(nil))
		f.Add(uint8(i), uint8(diffUnpack|diffUnpackDefault), []byte(nil), []byte(nil))
		f.Add(uint8(i), uint8(diffSign|diffUnpack|1), []byte{0, 0, 1, 1}, []byte(nil))
	}
	for _, s := range differentialCaseSeeds(f) {
		f.Add(s.base, s.cfg, s.order, s.muts)
	}
	f.Fuzz(func(t *testing.T, base, cfg uint8, order, muts []byte) {
		defer hangWatch(20 * time.Second).Stop()
		runDifferential(t, base, cfg, order, muts)
	})
}

// runDifferential is FuzzDifferential's run of one input.
func runDifferential(t testing.TB, base, cfg uint8, order, muts []byte) {
	bs := loadDiffBases(t)
	bb := bs[int(base)%len(bs)]
	b := mutatePackage(t, bb, parseDiffMuts(muts))
	var opts []Option
	if cfg&diffSign != 0 {
		b = signDiff(t, b)
		opts = append(opts, WithTrustedKeys(ring(diffKey(t))))
	}
	d := newDiffRun(t, b, bb, opts)
	if d == nil {
		return // the file does not open: every path fails alike
	}
	for i, cache := range []int64{diffCaches[cfg&7], DefaultCacheSize} {
		for _, k := range []diffKind{kindReadFile, kindReadObject} {
			d.fresh(cache, k)
		}
		// One Unpack a run (files cost system calls: several times the
		// rest of a run), at the cache diffUnpackDefault chooses.
		d.shared(cache, order, cfg&diffUnpack != 0 && (i == 1) == (cfg&diffUnpackDefault != 0), i == 0)
	}
	d.compare()
	d.verify()
}

// verify fails the test if VerifyAll ("bpx verify") passes a file a read
// of whose own files failed: it is the union of every reader's checks.
// (Reads that disagree fail the test already.)
func (d *diffRun) verify() {
	if len(d.fail) == 0 {
		return
	}
	p := d.open(DefaultCacheSize)
	defer p.Close()
	var err error
	d.guard("VerifyAll", func() { err = p.VerifyAll() })
	if err == nil {
		d.t.Errorf("VerifyAll passes a file whose reads failed: %s", d.fail[0])
	}
}

// BenchmarkDifferential measures FuzzDifferential's runs of the
// unmutated bases, signed or not, with and without Unpack: the fuzzer's
// executions a second are about the inverse, less its instrumentation.
func BenchmarkDifferential(b *testing.B) {
	for _, cfg := range []uint8{0, diffSign, diffUnpack} {
		for base := range loadDiffBases(b) {
			b.Run(fmt.Sprintf("base=%d/cfg=%#x", base, cfg), func(b *testing.B) {
				for b.Loop() {
					runDifferential(b, uint8(base), cfg, nil, nil)
				}
			})
		}
	}
}

// hangWatch makes the process fail, with every goroutine's stack, if it
// is not stopped within d: an input that makes a reader hang is then a
// crash the fuzzer keeps, not a run that stops making progress.
func hangWatch(d time.Duration) *time.Timer {
	return time.AfterFunc(d, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		panic(fmt.Sprintf("FuzzDifferential: one input ran for %v: a reader hangs?\n%s", d, buf[:n]))
	})
}

// Bits of FuzzDifferential's cfg: the low three choose the small cache
// among diffCaches; diffSign signs the mutated package and reads it with
// WithTrustedKeys; diffUnpack unpacks through the shared Package of the
// small cache, or with diffUnpackDefault through that of the default
// cache (every file written costs system calls: a few times the rest of a
// run, so a run unpacks once).
const (
	diffSign          = 8
	diffUnpack        = 16
	diffUnpackDefault = 32
)

// diffCaches are the small cache sizes FuzzDifferential chooses from:
// around four times the 4 KiB blocks of diffBases, so that their
// sections of 8 KiB are too large for the cache and their blocks (or
// blocks of 5 KiB) are not; and 0, no cache at all.
var diffCaches = [8]int64{16 << 10, 8 << 10, 32 << 10, 4 << 10, 0, 64 << 10, 20 << 10, 12 << 10}

// diffSeed is one input of FuzzDifferential.
type diffSeed struct {
	base, cfg   uint8
	order, muts []byte
}

// differentialCaseSeeds returns one input for each case of issue 41 that
// the code before its fix got wrong, and two the fuzzer found (2b, 5):
// each failed until the bug it shows was fixed (commit 98c5d02: index
// entries checked against their table rows, which also makes the weak
// binding of seed 5 harmless; cache keys by place; block maps checked
// against the blocks).
func differentialCaseSeeds(t testing.TB) []diffSeed {
	bs := loadDiffBases(t)
	ix, blk := bs[0], bs[1]
	a, b := ix.entry(t, "a.png"), ix.entry(t, "b.png")
	one, two, three := ix.entry(t, "c/one.txt"), ix.entry(t, "c/two.txt"), ix.entry(t, "c/three.txt")
	z := ix.entry(t, "z.txt")
	sec := blk.blockSection(t, "gen/g07.txt")
	return []diffSeed{
		// 1. An index entry for a.png with its own place, size and
		// digest but b.png's object number: with a small cache, a.png
		// is read whole into the cache under b.png's key, and b.png then
		// reads a.png's bytes and zeros; plain Reads of b.png past
		// a.png's size panic (the order: a.png by ReadFile, then b.png
		// by Open and Read).
		{base: 0, cfg: 0, order: []byte{ix.keySel("a.png"), byte(kindReadFile), ix.keySel("b.png"), byte(kindReads)}, muts: diffMuts(
			diffMut{op: mutIndexEntry, a: a, b: fieldObj, e: b},
		)},
		// 2. An index sending a.png to b.png's bytes (object, size,
		// place and digest): the fs.FS follows it, the tables do not.
		{base: 0, cfg: 0, muts: diffMuts(
			diffMut{op: mutIndexEntry, a: a, b: fieldObj, e: b},
			diffMut{op: mutIndexEntry, a: a, b: fieldSize, e: b},
			diffMut{op: mutIndexEntry, a: a, b: fieldStart, e: b},
			diffMut{op: mutIndexEntry, a: a, b: fieldOffset, e: b},
			diffMut{op: mutIndexEntry, a: a, b: fieldSum, e: b},
		)},
		// 2b. (Found by the fuzzer.) An index entry for z.txt, the last
		// object of its section, 200 bytes longer than the table says:
		// read through the index it spans into the next section, and an
		// object of two segments is never checked against the entry's
		// digest, only against its sections' checksums, which pass.
		{base: 0, cfg: 0, muts: diffMuts(
			diffMut{op: mutIndexEntry, a: z, b: fieldSize, e: z, v: 200},
		)},
		// 3. A block map whose xz index moves 1,024 bytes of decoded size
		// from a section's first block to its second, the index's CRC32
		// recomputed: read by blocks (a cache of 20 KiB, which takes the
		// 5,120 bytes the second block now claims but not the section;
		// signed, so that no digest is checked), an object inside the
		// second block comes 1,024 bytes off; the section decoded in
		// steps gives its bytes.
		{base: 1, cfg: diffSign | 6, muts: diffMuts(
			diffMut{op: mutXZShift, a: sec, b: 0, v: 1024},
		)},
		// 4. An index without digests whose entry for c/one.txt names
		// c/two.txt's object at c/three.txt's place, in the same section:
		// once c/two.txt was read from the cached section, the digest
		// memo of its object number passes c/three.txt's bytes unchecked.
		{base: 0, cfg: 0, order: []byte{ix.keySel("c/two.txt"), byte(kindReadFile)}, muts: diffMuts(
			diffMut{op: mutIndexDigests, b: 1},
			diffMut{op: mutIndexEntry, a: one, b: fieldObj, e: two},
			diffMut{op: mutIndexEntry, a: one, b: fieldSize, e: three},
			diffMut{op: mutIndexEntry, a: one, b: fieldStart, e: three},
			diffMut{op: mutIndexEntry, a: one, b: fieldOffset, e: three},
		)},
		// 5. (Found by the fuzzer.) The object table edited so that its
		// reference CRC32, which the index's binding to the table
		// compares, does not change: a.png's size 300 (0x012C) made
		// 12,620 (0x314C), byte 0 xored with 0x60 and byte 1 with 0x30,
		// which that CRC's step (one shift per byte) cancels. The index
		// of the old table is used: the fs.FS says 300 bytes, the tables
		// 12,620.
		{base: 0, cfg: 0, muts: diffMuts(
			diffMut{op: mutTableField, a: 0, b: 0, e: 0, v: 12620 - 300},
		)},
	}
}

// diffBase is a package FuzzDifferential mutates, with what the
// mutations address: its object names in table order and the files of
// its path index in index order.
type diffBase struct {
	b     []byte
	names []string // object names in table order
	files []string // files of the fs view, in path index order
}

// entry returns the number of name among b's path index files, for a
// mutation of its entry.
func (b *diffBase) entry(t testing.TB, name string) entryRef {
	t.Helper()
	i := slices.Index(b.files, name)
	if i < 0 {
		t.Fatalf("%q is not a file of the base", name)
	}
	return entryRef(i)
}

// blockSection returns the number, among b's sections of several blocks,
// of the section that holds the object named name.
func (b *diffBase) blockSection(t testing.TB, name string) uint8 {
	t.Helper()
	p := openBytes(t, b.b)
	secs := blockSections(p.Reader)
	o := p.Objects()[slices.Index(b.names, name)]
	segs, err := p.segments(&o)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range secs {
		if s.Index == segs[0].sec {
			return uint8(i)
		}
	}
	t.Fatalf("%q is not in a section of blocks", name)
	return 0
}

// entryRef is the number of a path index entry, as a mutation names it.
type entryRef = uint8

// keySel returns the byte of a FuzzDifferential order that reads the
// file name of base b (see newDiffRun: the keys start with the table
// view's files in table order, the base's names less the ones the view
// leaves out).
func (b *diffBase) keySel(n string) byte {
	k := 0
	for _, m := range b.names {
		if m == n {
			return byte(k)
		}
		if slices.Contains(b.files, m) {
			k++
		}
	}
	return 0
}

var diffBasesOnce struct {
	once  sync.Once
	bases []*diffBase
	key   *sign.PrivateKey
	err   error
}

// loadDiffBases returns FuzzDifferential's base packages, made once.
func loadDiffBases(t testing.TB) []*diffBase {
	t.Helper()
	o := &diffBasesOnce
	o.once.Do(func() { o.bases, o.err = makeDiffBases() })
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.bases
}

// diffKey returns the key FuzzDifferential signs with.
func diffKey(t testing.TB) *sign.PrivateKey {
	t.Helper()
	o := &diffBasesOnce
	loadDiffBases(t)
	if o.key == nil {
		t.Fatal("no key")
	}
	return o.key
}

// baseFile is an object of a base package: its name and bytes.
type baseFile struct {
	name string
	data []byte
}

// makeDiffBases writes the base packages of FuzzDifferential, each a few
// tens of KiB:
//
//   - 0: a path index with digests and chunk digests, sections of 8 KiB
//     in xz blocks of 4 KiB, objects of 0 to 4,000 bytes (one spans
//     sections, one is stored raw), and names the fs view leaves out;
//   - 1: no path index, the same sections, 16 small objects, one of
//     6,000 bytes that spans sections, one stored raw, one invalid name.
func makeDiffBases() ([]*diffBase, error) {
	k, err := sign.GenerateKey(rand.NewChaCha8([32]byte{41}), "fuzzdiff")
	if err != nil {
		return nil, err
	}
	diffBasesOnce.key = k
	// Text that names its object and its offset every 16 bytes: bytes
	// of another object or another place differ, and LZMA decodes it
	// mostly as matches, fast.
	text := func(seed uint64, n int) []byte {
		var b []byte
		for len(b) < n {
			b = fmt.Appendf(b, "obj%03d@%07d;\n", seed, len(b))
		}
		return b[:n]
	}
	noise := func(seed uint64, n int) []byte {
		rnd := rand.New(rand.NewPCG(seed, 7))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		return b
	}
	a := []baseFile{
		{"a.png", text(1, 300)},
		{"b.png", text(2, 900)},
		{"c/one.txt", text(3, 1500)},
		{"c/two.txt", text(4, 2500)},
		{"c/three.txt", text(5, 700)},
		{"d/spans.txt", text(6, 4000)},
		{"d/x/small.txt", text(7, 40)},
		{"e/noise.bin", noise(8, 1500)},
		{"e/empty", nil},
		{"../escape", text(9, 100)},
		{"f/g.txt", text(10, 1000)},
		{"file-and-dir", text(11, 60)},
		{"file-and-dir/x", text(12, 80)},
		{"/abs", text(13, 50)},
		{"ok/./x", text(15, 30)},
		{"z.txt", text(16, 600)},
	}
	var bfiles []baseFile
	for i := range 16 {
		bfiles = append(bfiles, baseFile{fmt.Sprintf("gen/g%02d.txt", i), text(uint64(100+i), 100+(i*397)%1400)})
		if i == 9 {
			bfiles = append(bfiles, baseFile{"big/spans.txt", text(200, 6000)}, baseFile{"raw.bin", noise(201, 1200)}, baseFile{"bad//name", text(202, 10)})
		}
	}
	var out []*diffBase
	for _, c := range []struct {
		files []baseFile
		opts  []WriterOption
	}{
		{a, []WriterOption{WithPathIndex(true), WithChunkDigests(true), WithSectionSize(8 << 10), WithBlockSize(4 << 10)}},
		{bfiles, []WriterOption{WithPathIndex(false), WithChunkDigests(true), WithSectionSize(8 << 10), WithBlockSize(4 << 10)}},
	} {
		var buf bytes.Buffer
		w := NewWriter(&buf, append([]WriterOption{AllowInvalidNames(), WithConcurrency(1)}, c.opts...)...)
		db := &diffBase{}
		for _, f := range c.files {
			ow, err := w.Create(f.name)
			if err != nil {
				return nil, err
			}
			ow.Write(f.data)
			db.names = append(db.names, f.name)
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		db.b = buf.Bytes()
		files, _ := indexFiles(len(db.names), func(i int) (string, bool) { return db.names[i], true })
		for _, f := range files {
			db.files = append(db.files, f.name)
		}
		out = append(out, db)
	}
	return out, nil
}

// Mutations: six bytes each (op, a, b, v as int16, e), at most
// maxDiffMuts of them.
const (
	mutTableField   = iota // table row a, field b (size, name, start, offset) := row e's + v
	mutDigest              // digest of object a := object e's, xored with v if b is odd
	mutDigestsBind         // SectionDigests names the object table as it is now
	mutIndexEntry          // index entry a, field b (see fieldObj) := entry e's + v; the index is made again
	mutIndexDigests        // the index is made again, without digests if b is odd
	mutIndexRaw            // byte (a | b<<8) of the index xored with e; CRC-32Cs fixed unless v is odd
	mutXZShift             // xz index of block section a: record b gives v bytes of decoded size (e odd: unpadded size) to the next
	mutXZRaw               // byte a of that xz index xored with e, its CRC32 recomputed
	mutChunkRaw            // byte (a | b<<8) of the chunk digests xored with e
	numMuts

	maxDiffMuts = 16
)

// Fields of an index entry, for mutIndexEntry.
const (
	fieldObj = iota
	fieldSize
	fieldStart
	fieldOffset
	fieldSum
	numFields
)

// diffMut is one decoded mutation.
type diffMut struct {
	op, a, b, e uint8
	v           int16
}

// parseDiffMuts decodes the mutations of a FuzzDifferential input.
func parseDiffMuts(b []byte) []diffMut {
	var out []diffMut
	for len(b) >= 6 && len(out) < maxDiffMuts {
		out = append(out, diffMut{op: b[0] % numMuts, a: b[1], b: b[2], v: int16(binary.LittleEndian.Uint16(b[3:])), e: b[5]})
		b = b[6:]
	}
	return out
}

// diffMuts encodes mutations as parseDiffMuts reads them, for seeds.
func diffMuts(ms ...diffMut) []byte {
	var b []byte
	for _, m := range ms {
		b = append(b, m.op, m.a, m.b)
		b = binary.LittleEndian.AppendUint16(b, uint16(m.v))
		b = append(b, m.e)
	}
	return b
}

// sectionBytes returns the decoded data of the section of type typ of the
// package b, nil if it has none or it does not decode.
func sectionBytes(rd *bpx.Reader, typ uint8) []byte {
	s := rd.FindSection(typ)
	if s == nil {
		return nil
	}
	d, err := s.Data()
	if err != nil {
		return nil
	}
	return d
}

// mutatePackage returns the package of base changed by muts: the tables,
// digests and chunk digests written again (replaceSection, checksums
// right), the path index made again from the tables as they are then and
// its entries changed, then patched byte by byte, the xz indexes patched
// in place.
func mutatePackage(t testing.TB, base *diffBase, muts []diffMut) []byte {
	t.Helper()
	if len(muts) == 0 {
		return base.b
	}
	rd, err := bpx.NewReader(bytes.NewReader(base.b), int64(len(base.b)))
	if err != nil {
		t.Fatal(err)
	}
	table := sectionBytes(rd, SectionObjectTable)
	strs := sectionBytes(rd, SectionStrings)
	digs := sectionBytes(rd, SectionDigests)
	chunks := sectionBytes(rd, SectionChunkDigests)
	hasIndex := rd.FindSection(SectionPathIndex) != nil
	nobj := len(table) / ObjectEntrySize
	var tableChanged, digsChanged, chunksChanged, remake, noSums bool
	var entryEdits, rawEdits, xzEdits []diffMut
	for _, m := range muts {
		switch m.op {
		case mutTableField:
			if nobj == 0 {
				continue
			}
			row, src := table[int(m.a)%nobj*ObjectEntrySize:], table[int(m.e)%nobj*ObjectEntrySize:]
			if f := int(m.b) % 4; f == 0 {
				binary.LittleEndian.PutUint64(row, binary.LittleEndian.Uint64(src)+uint64(int64(m.v)))
			} else {
				at := 4 + 4*f // 8 name, 12 start, 16 offset
				binary.LittleEndian.PutUint32(row[at:], binary.LittleEndian.Uint32(src[at:])+uint32(int32(m.v)))
			}
			tableChanged = true
		case mutDigest:
			if nobj == 0 || len(digs) < digestHeaderSize+4*nobj {
				continue
			}
			sum := binary.LittleEndian.Uint32(digs[digestHeaderSize+4*(int(m.e)%nobj):])
			if m.b&1 != 0 {
				sum ^= uint32(uint16(m.v)) | 1
			}
			binary.LittleEndian.PutUint32(digs[digestHeaderSize+4*(int(m.a)%nobj):], sum)
			digsChanged = true
		case mutDigestsBind:
			if len(digs) >= digestHeaderSize {
				binary.LittleEndian.PutUint32(digs[4:], objectDigest(table))
				digsChanged = true
			}
		case mutIndexEntry:
			entryEdits = append(entryEdits, m)
			remake = true
		case mutIndexDigests:
			noSums = m.b&1 != 0
			remake = true
		case mutIndexRaw:
			rawEdits = append(rawEdits, m)
		case mutXZShift, mutXZRaw:
			xzEdits = append(xzEdits, m)
		case mutChunkRaw:
			if len(chunks) > 0 {
				chunks[(int(m.a)|int(m.b)<<8)%len(chunks)] ^= max(m.e, 1)
				chunksChanged = true
			}
		}
	}
	b := base.b
	if tableChanged {
		b = replaceSection(t, b, SectionObjectTable, bpx.ChecksumCRC32, func([]byte) []byte { return table })
	}
	if digsChanged {
		b = replaceSection(t, b, SectionDigests, bpx.ChecksumWeak, func([]byte) []byte { return digs })
	}
	if chunksChanged {
		b = replaceSection(t, b, SectionChunkDigests, bpx.ChecksumCRC32, func([]byte) []byte { return chunks })
	}
	if hasIndex && (remake || len(rawEdits) > 0) {
		rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		index := sectionBytes(rd, SectionPathIndex)
		if remake {
			if ix := remakeIndex(rd, table, strs, digs, entryEdits, !noSums); ix != nil {
				index = ix
			}
		}
		fix := true
		for _, m := range rawEdits {
			if len(index) > 0 {
				index[(int(m.a)|int(m.b)<<8)%len(index)] ^= max(m.e, 1)
			}
			fix = fix && m.v&1 == 0
		}
		if fix {
			fixIndexSums(index)
		}
		b = replaceSection(t, b, SectionPathIndex, bpx.ChecksumWeak, func([]byte) []byte { return index })
	}
	if len(xzEdits) > 0 {
		rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		secs := blockSections(rd)
		if len(secs) > 0 {
			b = bytes.Clone(b)
			for _, m := range xzEdits {
				s := secs[int(m.a)%len(secs)]
				patchXZIndex(b[s.Pointer:s.Pointer+uint64(s.CSize)], m)
			}
		}
	}
	return b
}

// remakeIndex returns a path index of the tables table and strs (bound to
// the sections of rd that hold them), with the digests digs if sums,
// its entries then changed by edits; nil if the tables have no index
// (repeated names).
func remakeIndex(rd *bpx.Reader, table, strs, digs []byte, edits []diffMut, sums bool) []byte {
	nobj := len(table) / ObjectEntrySize
	files, ok := indexFiles(nobj, tableNames(table, strs))
	if !ok || len(files) == 0 {
		return nil
	}
	entries := make([]pathEntry, len(files))
	for i, f := range files {
		e := table[int(f.obj)*ObjectEntrySize:]
		entries[i] = pathEntry{name: f.name, obj: f.obj, size: binary.LittleEndian.Uint64(e),
			start: binary.LittleEndian.Uint32(e[12:]), offset: binary.LittleEndian.Uint32(e[16:])}
		if at := digestHeaderSize + 4*int(f.obj); at+4 <= len(digs) {
			entries[i].sum = binary.LittleEndian.Uint32(digs[at:])
		}
	}
	for _, m := range edits {
		e, src := &entries[int(m.a)%len(entries)], entries[int(m.e)%len(entries)]
		d := int32(m.v)
		switch m.b % numFields {
		case fieldObj:
			e.obj = src.obj + uint32(d)
		case fieldSize:
			e.size = src.size + uint64(int64(d))
		case fieldStart:
			e.start = src.start + uint32(d)
		case fieldOffset:
			e.offset = src.offset + uint32(d)
		case fieldSum:
			e.sum = src.sum + uint32(d)
		}
	}
	w := pathIndexWriter{digests: sums}
	for i := range entries {
		w.add(&entries[i])
	}
	return w.finish(bindingOf(rd.FindSection(SectionObjectTable)), bindingOf(rd.FindSection(SectionStrings)))
}

// fixIndexSums sets the CRC-32Cs of a path index patched byte by byte so
// that they match it again, as far as its header and root can be read:
// each page's in the root, the root's and the header's.
func fixIndexSums(ix []byte) {
	if len(ix) < pathIndexHeaderSize {
		return
	}
	rootSize := uint64(binary.LittleEndian.Uint32(ix[20:]))
	if rootSize <= uint64(len(ix)-pathIndexHeaderSize) {
		root := ix[pathIndexHeaderSize : pathIndexHeaderSize+rootSize]
		off := pathIndexHeaderSize + rootSize
		for r := root; len(r) >= 12; {
			size := uint64(binary.LittleEndian.Uint32(r))
			if off+size <= uint64(len(ix)) {
				binary.LittleEndian.PutUint32(r[4:], objectDigest(ix[off:off+size]))
			}
			off += size
			n, k := binary.Uvarint(r[12:])
			if k <= 0 || n > uint64(len(r)-12-k) {
				break
			}
			r = r[12+k+int(n):]
		}
		binary.LittleEndian.PutUint32(ix[24:], objectDigest(root))
	}
	binary.LittleEndian.PutUint32(ix[76:], objectDigest(ix[:76]))
}

// blockSections returns the sections of rd that are xz streams of
// several blocks, whose index a mutation may patch.
func blockSections(rd *bpx.Reader) []*bpx.Section {
	var out []*bpx.Section
	for _, s := range rd.Sections {
		if blocks, err := s.Blocks(); err == nil && len(blocks) > 1 {
			out = append(out, s)
		}
	}
	return out
}

// patchXZIndex applies m (mutXZShift or mutXZRaw) to the xz index at the
// end of stored, the stored bytes of an xz section of blocks, in place,
// and recomputes the index's CRC32. A shift that would change the
// index's length is not made.
func patchXZIndex(stored []byte, m diffMut) {
	if len(stored) < 12+xzdec.FooterSize+8 {
		return
	}
	size, _, err := xzdec.ParseFooter(stored[len(stored)-xzdec.FooterSize:])
	if err != nil || size > int64(len(stored)-12-xzdec.FooterSize) {
		return
	}
	idx := stored[int64(len(stored)-xzdec.FooterSize)-size : len(stored)-xzdec.FooterSize]
	defer func() {
		binary.LittleEndian.PutUint32(idx[len(idx)-4:], crc32.ChecksumIEEE(idx[:len(idx)-4]))
	}()
	if m.op == mutXZRaw {
		idx[int(m.a)%(len(idx)-4)] ^= max(m.e, 1)
		return
	}
	// Records: indicator 0, count, then (unpadded size, decoded size).
	n, k := binary.Uvarint(idx[1:])
	if k <= 0 || n < 2 || n > uint64(len(idx)) {
		return
	}
	recs := make([][2]uint64, n)
	p := 1 + k
	for i := range recs {
		for j := range 2 {
			v, k := binary.Uvarint(idx[p:])
			if k <= 0 {
				return
			}
			recs[i][j], p = v, p+k
		}
	}
	i, f, d := int(m.b)%(len(recs)-1), 1^int(m.e&1), int64(m.v) // f 1: decoded size
	if int64(recs[i][f])-d < 0 || int64(recs[i+1][f])+d < 0 {
		return
	}
	recs[i][f] -= uint64(d)
	recs[i+1][f] += uint64(d)
	out := binary.AppendUvarint([]byte{0}, n)
	for _, r := range recs {
		out = binary.AppendUvarint(binary.AppendUvarint(out, r[0]), r[1])
	}
	for (len(out)+4)%4 != 0 {
		out = append(out, 0)
	}
	if len(out)+4 == len(idx) {
		copy(idx, out)
	}
}

// signDiff returns b signed by FuzzDifferential's key.
func signDiff(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := sign.Sign(&out, bytes.NewReader(b), int64(len(b)), diffKey(t)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// diffKind is a way FuzzDifferential reads a name or an object.
type diffKind int

const (
	kindReadFile   diffKind = iota // fs: ReadFile
	kindReads                      // fs: Open, plain Reads of 257 bytes
	kindWriteTo                    // fs: Open, io.Copy through WriteTo
	kindReadAt                     // fs: Open, ReadAt at a few offsets
	kindSeek                       // fs: Open, Read, Seek back and forth, Read
	kindReadObject                 // tables: ReadObject of the name's row
	kindOpenObject                 // tables: OpenObject, plain Reads, then ReadAt
	kindUnpack                     // tables: Unpack, the files read back
	numKinds
)

var diffKinds = [numKinds]string{"ReadFile", "Open+Read", "Open+WriteTo", "Open+ReadAt", "Open+Seek", "ReadObject", "OpenObject", "Unpack"}

// diffObs is a successful read: bytes off to off+len(data) of a name
// (all of them if full), and the path that read them.
type diffObs struct {
	path string
	off  int64
	data []byte
	full bool
}

// diffRun reads the names and objects of one mutated package through
// every path and keeps what succeeded, by key: a file of the tables'
// view or of the base, by name; another object, "#" and its row.
type diffRun struct {
	t    testing.TB
	b    []byte
	opts []Option
	keys []string
	name map[string]bool // keys that are names of the fs view
	row  map[string]int  // the table row of a key, if any
	obs  map[string][]diffObs
	fail []string // reads of the tables' own files that failed, and why
}

// newDiffRun opens b (with opts) to list its keys: the files of its
// tables' view in table order, the base's files, the other objects. It
// returns nil when b does not open.
func newDiffRun(t testing.TB, b []byte, base *diffBase, opts []Option) *diffRun {
	p, err := NewReader(bytes.NewReader(b), int64(len(b)), opts...)
	if err != nil {
		return nil
	}
	defer p.Close()
	d := &diffRun{t: t, b: b, opts: opts, name: map[string]bool{}, row: map[string]int{}, obs: map[string][]diffObs{}}
	var others []string
	if p.LoadTables() == nil {
		bad := p.InvalidPaths()
		for i, o := range p.Objects() {
			if _, ok := bad[i]; !ok && validFile(o.Name) && !d.name[o.Name] {
				d.keys = append(d.keys, o.Name)
				d.name[o.Name], d.row[o.Name] = true, i
				continue
			}
			k := fmt.Sprintf("#%d", i)
			d.row[k] = i
			others = append(others, k)
		}
	}
	for _, n := range base.files {
		if !d.name[n] {
			d.keys = append(d.keys, n)
			d.name[n] = true
		}
	}
	d.keys = append(d.keys, others...)
	return d
}

// open returns a new Package of the run's file with a cache of cache
// bytes, or nil (the file opened once: this one must too).
func (d *diffRun) open(cache int64) *Package {
	p, err := NewReader(bytes.NewReader(d.b), int64(len(d.b)), append([]Option{WithCacheSize(cache)}, d.opts...)...)
	if err != nil {
		d.t.Fatalf("NewReader with a cache of %d: %v; it opened with the default cache", cache, err)
	}
	return p
}

// fresh reads every key the way kind does, through a Package of its own.
func (d *diffRun) fresh(cache int64, kind diffKind) {
	p := d.open(cache)
	defer p.Close()
	label := fmt.Sprintf("fresh/cache=%d/%s", cache, diffKinds[kind])
	if kind == kindUnpack {
		d.unpack(p, label)
		return
	}
	for _, k := range d.keys {
		d.read(p, label, kind, k)
	}
}

// shared reads through one Package: first the reads order asks for (two
// bytes each: a key, a kind), then every key every way, then, if unpack,
// Unpack, and if layered, every name through an overlay.
func (d *diffRun) shared(cache int64, order []byte, unpack, layered bool) {
	p := d.open(cache)
	defer p.Close()
	if len(d.keys) == 0 {
		return
	}
	unpacked := false
	for i := 0; i+1 < len(order) && i < 128; i += 2 {
		k, kind := d.keys[int(order[i])%len(d.keys)], diffKind(int(order[i+1])%int(numKinds))
		label := fmt.Sprintf("shared/cache=%d/order[%d]/%s", cache, i/2, diffKinds[kind])
		if kind == kindUnpack {
			if !unpacked { // once: later ones read nothing new
				d.unpack(p, label)
				unpacked = true
			}
		} else {
			d.read(p, label, kind, k)
		}
	}
	for _, k := range d.keys {
		for _, kind := range []diffKind{kindReadFile, kindReads, kindReadObject} {
			d.read(p, fmt.Sprintf("shared/cache=%d/%s", cache, diffKinds[kind]), kind, k)
		}
	}
	if unpack && !unpacked {
		d.unpack(p, fmt.Sprintf("shared/cache=%d/Unpack", cache))
	}
	if layered {
		d.overlay(p, fmt.Sprintf("shared/cache=%d/overlay", cache))
	}
}

// overlay reads every name through an overlay.FS of p over an empty layer
// (p's removal list applies to that layer only), with ReadFile, and with
// Open and a Read of its first bytes.
func (d *diffRun) overlay(p *Package, label string) {
	var o *overlay.FS
	d.guard(label, func() {
		var err error
		if o, err = overlay.New(fstest.MapFS{}, p); err != nil {
			o = nil // a bad removal list: the overlay refuses p
		}
	})
	if o == nil {
		return
	}
	for _, k := range d.keys {
		if !d.name[k] {
			continue
		}
		l := label + "(" + k + ")"
		d.guard(l, func() {
			if b, err := o.ReadFile(k); err == nil {
				d.add(k, l+"ReadFile", 0, b, true)
			}
			f, err := o.Open(k)
			if err != nil {
				return
			}
			defer f.Close()
			if fi, err := f.Stat(); err == nil && !fi.IsDir() {
				// Its first bytes: the file the overlay opens is read as
				// the shared pass reads its own (reading it whole again
				// took a third of a run).
				b := make([]byte, 257)
				if n, err := io.ReadFull(f, b); err == nil || err == io.ErrUnexpectedEOF || err == io.EOF {
					d.add(k, l+"Open+Read", 0, b[:n], int64(n) == fi.Size())
				}
			}
		})
	}
}

// add keeps a successful read of key.
func (d *diffRun) add(key, label string, off int64, data []byte, full bool) {
	d.obs[key] = append(d.obs[key], diffObs{path: label, off: off, data: data, full: full})
}

// guard runs f, failing the test with label if it panics.
func (d *diffRun) guard(label string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			d.t.Fatalf("%s panicked: %v\n%s", label, r, debug.Stack())
		}
	}()
	f()
}

// onlyReader hides every method of an io.Reader but Read (WriteTo).
type onlyReader struct{ io.Reader }

// onlyWriter hides every method of an io.Writer but Write (ReadFrom), so
// that io.CopyBuffer reads through its buffer.
type onlyWriter struct{ io.Writer }

// readPlain reads r to its end with Reads of 257 bytes.
func readPlain(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.CopyBuffer(onlyWriter{&buf}, onlyReader{r}, make([]byte, 257))
	return buf.Bytes(), err
}

// probeOffsets returns the offsets and lengths of the partial reads of an
// object of size bytes, in order (a streamed section is not decoded again
// from its start): its start, a third, across the 4 KiB boundary of
// blocks, its middle, its end.
func probeOffsets(size int64) [][2]int64 {
	out := [][2]int64{{0, 7}, {size / 3, 4096}}
	if size > 4096 {
		out = append(out, [2]int64{4090, 12})
	}
	return append(out, [2]int64{size / 2, 100}, [2]int64{max(size-5, 0), 5})
}

// read reads key through p the way kind does, keeping what succeeds.
func (d *diffRun) read(p *Package, label string, kind diffKind, key string) {
	isName := d.name[key]
	row, hasRow := d.row[key]
	label += "(" + key + ")"
	d.guard(label, func() {
		switch kind {
		case kindReadFile:
			if isName {
				b, err := p.ReadFile(key)
				if err == nil {
					d.add(key, label, 0, b, true)
				} else if hasRow && !errors.Is(err, fs.ErrNotExist) {
					d.fail = append(d.fail, fmt.Sprintf("%s: %v", label, err))
				}
			}
		case kindReads, kindWriteTo, kindReadAt, kindSeek:
			if !isName {
				return
			}
			f, err := p.Open(key)
			if err != nil {
				return
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil || fi.IsDir() {
				return
			}
			switch kind {
			case kindReads:
				if b, err := readPlain(f); err == nil {
					d.add(key, label, 0, b, true)
				}
			case kindWriteTo:
				var buf bytes.Buffer
				if _, err := io.Copy(&buf, f); err == nil {
					d.add(key, label, 0, buf.Bytes(), true)
				}
			case kindReadAt:
				d.readAt(key, label, f.(io.ReaderAt), fi.Size())
			case kindSeek:
				d.seek(key, label, f.(io.ReadSeeker), fi.Size())
			}
		case kindReadObject:
			if hasRow {
				b, err := p.ReadObject(row)
				if err == nil {
					d.add(key, label, 0, b, true)
				} else {
					d.fail = append(d.fail, fmt.Sprintf("%s: %v", label, err))
				}
			}
		case kindOpenObject:
			if !hasRow {
				return
			}
			r, err := p.OpenObject(row)
			if err != nil {
				return
			}
			defer r.Close()
			if b, err := readPlain(r); err == nil {
				d.add(key, label, 0, b, true)
			}
			d.readAt(key, label+"ReadAt", r, r.Size())
		}
	})
}

// readAt reads the probeOffsets of an object of size bytes from r.
func (d *diffRun) readAt(key, label string, r io.ReaderAt, size int64) {
	for _, q := range probeOffsets(size) {
		b := make([]byte, q[1])
		n, err := r.ReadAt(b, q[0])
		if err == nil || err == io.EOF {
			d.add(key, fmt.Sprintf("%s@%d", label, q[0]), q[0], b[:n], false)
		}
	}
}

// seek reads an object of size bytes from r in pieces: its start, its
// middle, its start again (a decoder restarted), its end.
func (d *diffRun) seek(key, label string, r io.ReadSeeker, size int64) {
	for _, q := range [][2]int64{{0, 100}, {size / 2, 300}, {1, 50}, {max(size-40, 0), 40}} {
		if _, err := r.Seek(q[0], io.SeekStart); err != nil {
			return
		}
		b := make([]byte, q[1])
		n, err := io.ReadFull(r, b)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return
		}
		d.add(key, fmt.Sprintf("%s@%d", label, q[0]), q[0], b[:n], false)
	}
}

// unpack unpacks p into a new directory and reads back the files of the
// keys that are names: every file Unpack made is whole, even when it
// fails (it removes the one it was writing).
func (d *diffRun) unpack(p *Package, label string) {
	dir := d.t.TempDir()
	d.guard(label, func() {
		p.Unpack(dir, SkipInvalid(), WithUnpackConcurrency(1))
	})
	for _, k := range d.keys {
		if !d.name[k] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(k)))
		if err == nil {
			d.add(k, label+"("+k+")", 0, b, true)
		} else if !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "directory") {
			d.t.Fatalf("%s: reading back %q: %v", label, k, err)
		}
	}
}

// compare fails the test for every key two of whose successful reads
// disagree: against the first whole read, or, without one, against each
// other where they overlap.
func (d *diffRun) compare() {
	reported := 0
	for _, k := range d.keys {
		obs := d.obs[k]
		ref := slices.IndexFunc(obs, func(o diffObs) bool { return o.full })
		for i := range obs {
			for j := range obs {
				if ref >= 0 && i != ref || ref < 0 && j <= i {
					continue
				}
				if i == j {
					continue
				}
				if msg := diffDisagree(&obs[i], &obs[j]); msg != "" {
					d.t.Errorf("%q: %s", k, msg)
					if reported++; reported >= 12 {
						d.t.FailNow()
					}
				}
			}
		}
	}
}

// diffDisagree says how two reads of the same name differ, "" if they do
// not: whole reads must be equal, partial ones equal where they overlap.
func diffDisagree(a, b *diffObs) string {
	if a.full && b.full && len(a.data) != len(b.data) {
		return fmt.Sprintf("%s gives %d bytes, %s %d%s", a.path, len(a.data), b.path, len(b.data), firstDiff(a.data, b.data, 0))
	}
	lo, hi := max(a.off, b.off), min(a.off+int64(len(a.data)), b.off+int64(len(b.data)))
	if a.full && len(b.data) > 0 && b.off+int64(len(b.data)) > int64(len(a.data)) {
		return fmt.Sprintf("%s gives %d bytes, %s has bytes %d to %d", a.path, len(a.data), b.path, b.off, b.off+int64(len(b.data)))
	}
	if lo >= hi {
		return ""
	}
	x, y := a.data[lo-a.off:hi-a.off], b.data[lo-b.off:hi-b.off]
	if bytes.Equal(x, y) {
		return ""
	}
	return fmt.Sprintf("%s and %s differ%s", a.path, b.path, firstDiff(x, y, lo))
}

// firstDiff describes where x and y, bytes from offset base of an
// object, first differ.
func firstDiff(x, y []byte, base int64) string {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	if i == len(x) && i == len(y) {
		return ""
	}
	show := func(b []byte) string { return fmt.Sprintf("%q", b[i:min(len(b), i+16)]) }
	return fmt.Sprintf(" from byte %d: %s against %s", base+int64(i), show(x), show(y))
}
