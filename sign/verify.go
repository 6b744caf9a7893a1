package sign

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobpx/bpx"
)

// CacheChunks is how many verified chunks a Verified keeps (fewer when
// the file's chunks are larger than ChunkSize: at most CacheChunks *
// ChunkSize bytes, or one chunk).
const CacheChunks = 4

// Verified is a signed file whose signature by a trusted key checked and
// whose header and section table match its manifest. As an io.ReaderAt it
// returns only bytes that match the manifest: each read is served from
// whole chunks hashed and compared first; a chunk that does not match is
// an error matching ErrTampered and bpx.ErrSignature, and none of its
// bytes are returned. It is safe for concurrent use.
type Verified struct {
	r          io.ReaderAt
	size       int64
	head, tail []byte // [0, start) and [end, size), checked at Open
	start, end int64  // the data range, read in verified chunks
	chunk      int64
	m          *manifest
	signers    []PublicKey
	st         Statement
	cache      *chunkCache
	last       atomic.Int64 // the chunk loaded last, for read-ahead
	pages      *pageCache   // the chunk digests of a paged manifest; nil if flat
}

// Open checks that the BPX file r (size bytes) is signed by a key of
// trusted and matches its manifest, and returns the file as a Verified.
// An unsigned file is ErrUnsigned, one signed by no key of trusted that
// verifies ErrUntrusted, one that does not match, or holds a signature
// that does not verify (by any key), ErrTampered; one whose Statement
// does not meet trusted's Requirement (see KeyRing.Require), or whose
// only trusted signers' lines do not allow the required name, is
// ErrRequirement, and one whose Statement expired ErrExpired; all match
// bpx.ErrSignature. Open reads the main header, the section table and
// the signature section, compares them, then hashes the manifest once and
// checks each signature; from an *os.File it also hashes the first
// CacheChunks chunks meanwhile, on another goroutine (readers read the
// tables next), and keeps those that match once the signature is
// trusted; from any other io.ReaderAt (remote, memory) it reads no data.
// An error reading r is returned as it is; a file that is not a BPX
// container at all matches both bpx.ErrSignature and the container's
// error (bpx.ErrFormat, ...).
func Open(r io.ReaderAt, size int64, trusted *KeyRing) (*Verified, error) {
	_, f, err := load(r, size)
	if err != nil {
		var re *readError
		if errors.As(err, &re) || errors.Is(err, bpx.ErrSignature) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", err, bpx.ErrSignature)
	}
	// The cheap checks first: the header, the table and the length
	// against the manifest (a manifest that claims more data than the
	// file has costs no hashing).
	if err := f.match(); err != nil {
		return nil, err
	}
	// From a local file, the first chunks are read and hashed on another
	// core while the signatures are checked: readers read the tables
	// next, which lie there. The digests are compared once the manifest
	// is trusted. Over a network (any other io.ReaderAt), Open reads no
	// data.
	n := 0
	if _, local := r.(*os.File); local {
		n = newChunkCache(f.m.chunk).max
	}
	pf := prefetch(r, f.m, n)
	defer pf.wait()
	now := time.Now()
	signers, err := f.trustedSigners(trusted, now)
	if err != nil {
		return nil, err
	}
	v := &Verified{
		r: r, size: size,
		head: f.l.head, tail: f.sec,
		start: int64(f.m.start), end: int64(f.m.end), chunk: int64(f.m.chunk),
		m: f.m, signers: signers, st: f.m.st, cache: newChunkCache(f.m.chunk),
	}
	if f.m.page > 0 {
		v.pages = &pageCache{off: f.ptr + int64(f.ss.head)}
	}
	v.last.Store(-2) // no chunk yet
	pf.wait()
	for i, buf := range pf.bufs {
		if d, err := v.digest(int64(i)); err == nil && buf != nil && bytes.Equal(pf.sums[i][:], d) {
			v.cache.put(int64(i), buf)
			v.last.Store(int64(i))
		}
	}
	return v, nil
}

// trustedSigners checks every signature of the file and returns the keys
// of trusted that signed it and may sign the name trusted requires, once
// the Statement meets trusted's Requirement at now.
func (f *signedFile) trustedSigners(trusted *KeyRing, now time.Time) ([]PublicKey, error) {
	keys, err := f.verifySignatures()
	if err != nil {
		return nil, err
	}
	req := trusted.Requirement()
	var signers []PublicKey
	var why []string
	anyTrusted := false // by a key of trusted, whatever the name
	for _, k := range keys {
		switch t := trusted.lookup(k, req.Name, now); {
		case t != nil:
			anyTrusted = true
			if !hasKey(signers, t.key) {
				signers = append(signers, t.key)
			}
		case trusted.lookup(k, "", now) != nil:
			anyTrusted = true
			why = append(why, fmt.Sprintf("%s may not sign %q", k.ID(), req.Name))
		case trusted.has(k):
			why = append(why, fmt.Sprintf("%s is outside its validity dates", k.ID()))
		default:
			why = append(why, "signed by "+k.ID())
		}
	}
	if !anyTrusted {
		return nil, fmt.Errorf("%w (%s)", ErrUntrusted, strings.Join(why, "; "))
	}
	// A trusted key signed it: what it states, then whether a key that
	// may state the name signed it.
	if err := req.meets(f.m.st, now); err != nil {
		return nil, err
	}
	if len(signers) == 0 {
		return nil, fmt.Errorf("%w (%s)", ErrRequirement, strings.Join(why, "; "))
	}
	return signers, nil
}

// prefetched is the first chunks of a file, read and hashed.
type prefetched struct {
	bufs [][]byte // nil where the read failed
	sums [][sha256.Size]byte
	done chan struct{}
}

// prefetch starts reading and hashing the first n chunks of the data
// range that m, not yet trusted, describes (its ranges are within the
// file, as load checked; a bad one just fails the read).
func prefetch(r io.ReaderAt, m *manifest, n int) *prefetched {
	chunks := (m.end - m.start + uint64(m.chunk) - 1) / uint64(m.chunk)
	n = int(min(uint64(n), chunks))
	pf := &prefetched{bufs: make([][]byte, n), sums: make([][sha256.Size]byte, n), done: make(chan struct{})}
	go func() {
		defer close(pf.done)
		for i := range n {
			cs := m.start + uint64(i)*uint64(m.chunk)
			buf := make([]byte, min(uint64(m.chunk), m.end-cs))
			if readFull(r, buf, int64(cs)) != nil {
				return
			}
			pf.bufs[i], pf.sums[i] = buf, sha256.Sum256(buf)
		}
	}()
	return pf
}

// wait waits for the prefetch to end.
func (pf *prefetched) wait() { <-pf.done }

// hasKey reports whether keys holds k.
func hasKey(keys []PublicKey, k PublicKey) bool {
	for _, x := range keys {
		if x.Equal(k) {
			return true
		}
	}
	return false
}

// ReadAt implements io.ReaderAt over the verified file. A read that
// reaches a chunk that does not match returns the bytes before that chunk
// and an error matching ErrTampered that names the chunk's byte range.
func (v *Verified) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("sign: read at negative offset %d", off)
	}
	if off >= v.size {
		return 0, io.EOF
	}
	eof := false
	if int64(len(p)) > v.size-off {
		p, eof = p[:v.size-off], true
	}
	n := 0
	if off < v.start {
		n = copy(p, v.head[off:])
	}
	if pos := off + int64(n); n < len(p) && pos < v.end {
		k, err := v.readData(p[n:n+int(min(int64(len(p)-n), v.end-pos))], pos)
		n += k
		if err != nil {
			return n, err
		}
	}
	if n < len(p) {
		k, err := v.readTail(p[n:], off+int64(n))
		n += k
		if err != nil {
			return n, err
		}
	}
	if eof {
		return n, io.EOF
	}
	return n, nil
}

// readData fills p, which lies in [start, end), from verified chunks and
// returns how many bytes are good.
func (v *Verified) readData(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		i := (pos - v.start) / v.chunk
		cs := v.start + i*v.chunk
		cl := min(v.chunk, v.end-cs)
		if pos == cs && int64(len(p)-n) >= cl {
			// Whole chunks: read them in place with one read, check each.
			whole := (int64(len(p)-n) - cl) / v.chunk // more after the first
			q := p[n : int64(n)+min(v.end-cs, cl+whole*v.chunk)]
			if err := readFull(v.r, q, cs); err != nil {
				clear(q)
				return n, err
			}
			j, err := v.checkChunks(i, q)
			n += int(j)
			if err != nil {
				clear(q[j:])
				return n, err
			}
			continue
		}
		k, err := v.fromChunk(i, p[n:], pos-cs)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// fromChunk copies chunk i's bytes from offset off into p, from the cache
// or after loading and checking the chunk.
func (v *Verified) fromChunk(i int64, p []byte, off int64) (int, error) {
	if n, ok := v.cache.copyOut(i, p, off); ok {
		return n, nil
	}
	// A reader in order (a section read in small pieces, as a package's
	// tables are) gets the next chunks loaded and hashed alongside, on
	// other cores; their errors are left for the reads that reach them.
	if v.last.Load() == i-1 {
		ahead := min(int64(runtime.GOMAXPROCS(0)), int64(v.cache.max/2), v.chunks()-i) - 1
		var wg sync.WaitGroup
		for k := int64(1); k <= ahead; k++ {
			wg.Go(func() { v.load(i + k) })
		}
		defer func() { wg.Wait(); v.last.Store(i + max(ahead, 0)) }()
	} else {
		v.last.Store(i)
	}
	cs := v.start + i*v.chunk
	buf := v.cache.buffer(int(min(v.chunk, v.end-cs)))
	if err := readFull(v.r, buf, cs); err != nil {
		return 0, err
	}
	if err := v.check(i, buf); err != nil {
		return 0, err
	}
	n := copy(p, buf[off:])
	v.cache.put(i, buf)
	return n, nil
}

// checkChunks checks q, whole chunks from chunk i on (the last one
// possibly the file's shorter last chunk), and returns how many of its
// bytes are good: all of them, or those before the first chunk that does
// not match, with its error.
func (v *Verified) checkChunks(i int64, q []byte) (int64, error) {
	for j := int64(0); j < int64(len(q)); j += v.chunk {
		if err := v.check(i+j/v.chunk, q[j:min(j+v.chunk, int64(len(q)))]); err != nil {
			return j, err
		}
	}
	return int64(len(q)), nil
}

// load loads, checks and caches chunk i, unless it is cached.
func (v *Verified) load(i int64) {
	if v.cache.has(i) {
		return
	}
	cs := v.start + i*v.chunk
	buf := v.cache.buffer(int(min(v.chunk, v.end-cs)))
	if readFull(v.r, buf, cs) == nil && v.check(i, buf) == nil {
		v.cache.put(i, buf)
	}
}

// chunks returns the number of chunks.
func (v *Verified) chunks() int64 { return (v.end - v.start + v.chunk - 1) / v.chunk }

// check compares chunk i's bytes with its digest.
func (v *Verified) check(i int64, p []byte) error {
	want, err := v.digest(i)
	if err != nil {
		return err
	}
	if d := sha256.Sum256(p); !bytes.Equal(d[:], want) {
		cs := v.start + i*v.chunk
		return &ChunkError{Chunk: i, Off: cs, End: cs + int64(len(p))}
	}
	return nil
}

// Size returns the file's size.
func (v *Verified) Size() int64 { return v.size }

// Signers returns the trusted keys whose signatures verified, as the
// KeyRing names them, in the order of the signatures.
func (v *Verified) Signers() []PublicKey { return append([]PublicKey(nil), v.signers...) }

// Statement returns what the file's signers state: its name, version
// and expiry (see Statement), which Open checked against the KeyRing's
// Requirement.
func (v *Verified) Statement() Statement { return v.st }

// VerifyAll reads and checks every chunk of the file, as a whole-file
// check does (bpx verify): nil when every byte matches. It reads the
// header, the table and the signature section again too, so that it
// checks the file as it is now.
func (v *Verified) VerifyAll() error {
	for _, part := range []struct {
		b   []byte
		off int64
	}{{v.head, 0}, {v.tail, v.end}} { // the chunk digests of a paged manifest are checked page by page below
		b := make([]byte, len(part.b))
		if err := readFull(v.r, b, part.off); err != nil {
			return err
		}
		if !bytes.Equal(b, part.b) {
			return fmt.Errorf("%w: bytes [%d, %d) changed since the file was opened", ErrTampered, part.off, part.off+int64(len(b)))
		}
	}
	return forChunks(v.r, v.start, v.end-v.start, uint32(v.chunk), chunkBuffer(uint32(v.chunk), v.end-v.start), v.check)
}

// VerifyGaps reads through v every byte of the file that lies neither in
// r's main header and section table nor in one of r's sections: a caller
// that has read every section of r (opened over v) has then had every
// byte of the file checked against the signature, without reading the
// sections a second time as VerifyAll does (over HTTP too).
func (v *Verified) VerifyGaps(r *bpx.Reader) error {
	type span struct{ off, end int64 }
	spans := []span{{0, bpx.MainHeaderSize + int64(len(r.Sections))*bpx.SectionHeaderSize}}
	for _, s := range r.Sections {
		spans = append(spans, span{int64(s.Pointer), int64(s.Pointer) + int64(s.StoredSize())})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	buf := make([]byte, 64<<10)
	var done int64 // the bytes before done are covered
	for _, sp := range append(spans, span{v.Size(), v.Size()}) {
		for done < min(sp.off, v.Size()) {
			n := min(int64(len(buf)), sp.off-done)
			if _, err := v.ReadAt(buf[:n], done); err != nil {
				return err
			}
			done += n
		}
		done = max(done, sp.end)
	}
	return nil
}

// Signature is one signature of a file, as Inspect finds it.
type Signature struct {
	Key   PublicKey // the key that the signature names
	Valid bool      // the signature verifies over the manifest
}

// Status is what Inspect finds in a file: who signed it, whether its
// signatures verify and whether it matches its manifest.
type Status struct {
	Signed     bool        // the file has a signature section
	Signatures []Signature // in their stored order
	Statement  Statement   // what the signers state (see Statement), as the file holds it
	Matches    bool        // every signature verifies, and header, table and length match the manifest (chunks are not read)
	Problem    error       // why the file does not match, a signature does not verify or the section is malformed; nil otherwise
}

// Inspect reports who signed the file r and whether it verifies, trusting
// no key: for bpx info and the explorer. It reads what Open reads; an
// error is returned only when r cannot be read. A file that is not a BPX
// container is unsigned, with the container's error as Problem.
func Inspect(r io.ReaderAt, size int64) (*Status, error) {
	l, f, err := load(r, size)
	var re *readError
	switch {
	case errors.As(err, &re):
		return nil, err
	case errors.Is(err, ErrUnsigned):
		return &Status{}, nil
	case err != nil:
		return &Status{Signed: l != nil, Problem: err}, nil
	}
	st := &Status{Signed: true, Statement: f.m.st}
	h := hashManifest(f.ss.manifest)
	for i, sig := range f.ss.signatures {
		k, err := verifyHashed(sig, &h)
		if err != nil {
			_, _, k, _ = parseSSHSIG(sig)
			if st.Problem == nil {
				st.Problem = tampered("signature %d of %d: %v", i+1, len(f.ss.signatures), err)
			}
		}
		st.Signatures = append(st.Signatures, Signature{Key: k, Valid: err == nil})
	}
	if err := f.match(); err != nil {
		st.Problem = err
	}
	st.Matches = st.Problem == nil
	return st, nil
}

// hashManifest is SSHSIG's hash of a manifest (a variable, so that the
// tests count the hashes).
var hashManifest = sha512.Sum512

// verifySignatures checks every signature of the file over its manifest
// (hashed once) and returns their keys: a signature that does not verify,
// by whatever key, is ErrTampered, since a signed file holds exactly what
// its signers wrote.
func (f *signedFile) verifySignatures() ([]PublicKey, error) {
	h := hashManifest(f.ss.manifest)
	keys := make([]PublicKey, 0, len(f.ss.signatures))
	for i, sig := range f.ss.signatures {
		k, err := verifyHashed(sig, &h)
		if err != nil {
			return nil, tampered("signature %d of %d: %v", i+1, len(f.ss.signatures), err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// signedFile is a signed file's header, table and signature section,
// parsed.
type signedFile struct {
	l         *layout
	sec       []byte      // the signature section's bytes up to its chunk digests, if paged
	ptr, size int64       // where the signature section lies
	ss        *sigSection // parsed
	m         *manifest   // ss.manifest, parsed
}

// tampered returns an error matching ErrTampered.
func tampered(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTampered}, args...)...)
}

// load reads the header, the table and the signature section of r and
// parses them. It returns the layout whenever the file has a signature
// section, also with an error. The signature section's header must be
// what Sign writes, and its size at most MaxSectionSize and inside the
// file, before its bytes are read.
func load(r io.ReaderAt, size int64) (*layout, *signedFile, error) {
	l, err := readLayout(r, size)
	if err != nil {
		return nil, nil, err
	}
	if i := l.misplaced(); i >= 0 {
		return l, nil, tampered("section %d is a signature section (type %#x) but not the last", i, SectionType)
	}
	if !l.signed() {
		return nil, nil, ErrUnsigned
	}
	last := l.n - 1
	sh, e := l.sec(last), l.entry(last)
	switch {
	case sh.Flags != 0:
		return l, nil, tampered("signature section (section %d): flags %#x, not 0", last, sh.Flags)
	case sh.Checksum != 0:
		return l, nil, tampered("signature section (section %d): checksum %#x, not 0", last, sh.Checksum)
	case sh.CSize != sh.USize:
		return l, nil, tampered("signature section (section %d): CSize %d differs from USize %d", last, sh.CSize, sh.USize)
	case e[22]|e[23] != 0:
		return l, nil, tampered("signature section (section %d): reserved bytes %#x %#x, not 0", last, e[22], e[23])
	case sh.USize > MaxSectionSize:
		return l, nil, tampered("signature section (section %d): %d bytes, more than %d", last, sh.USize, MaxSectionSize)
	case sh.Pointer < uint64(len(l.head)) || sh.Pointer > uint64(size) || uint64(sh.USize) > uint64(size)-sh.Pointer:
		return l, nil, tampered("signature section (section %d): bytes [%d, %d) outside the file's data [%d, %d)",
			last, sh.Pointer, sh.Pointer+uint64(sh.USize), len(l.head), size)
	}
	// The section is read as far as its manifest and signatures go: the
	// chunk digests that follow those of a paged manifest are read a
	// page at a time, as reads need them.
	f := &signedFile{l: l, ptr: int64(sh.Pointer), size: int64(sh.USize)}
	total := int(sh.USize)
	for want := min(total, sigHeadRead); ; {
		if want > total {
			return l, nil, tampered("signature section: %d bytes, cut short (%d needed)", total, want)
		}
		if len(f.sec) < want {
			b := make([]byte, want)
			copy(b, f.sec)
			if err := readFull(r, b[len(f.sec):], int64(sh.Pointer)+int64(len(f.sec))); err != nil {
				return l, nil, err
			}
			f.sec = b
		}
		if f.ss, want, err = parseSigHead(f.sec, total); err != nil {
			return l, nil, tampered("%v", err)
		}
		if want <= len(f.sec) {
			break
		}
		want = max(want, min(2*len(f.sec), total))
	}
	f.sec = f.sec[:f.ss.head]
	if f.m, err = parseManifest(f.ss.manifest); err != nil {
		return l, nil, tampered("signature section: %v", err)
	}
	switch pages := uint64(total - f.ss.head); {
	case f.ss.paged != (f.m.page > 0):
		return l, nil, tampered("signature section: a manifest with%s pages in a section of magic %d", cond(f.m.page > 0, "", "out"), cond(f.ss.paged, 2, 1))
	case f.ss.paged && pages != f.m.chunkCount()*sha256.Size:
		return l, nil, tampered("signature section: %d bytes of chunk digests, the manifest has %d chunks", pages, f.m.chunkCount())
	}
	return l, f, nil
}

// sigHeadRead is the first read of a signature section: its manifest and
// signatures fit unless the manifest is flat and large (then it is read
// whole) or many signatures are kept.
const sigHeadRead = 64 << 10

// match checks the file against its manifest (see the package
// documentation) and says what differs.
func (f *signedFile) match() error {
	l, m := f.l, f.m
	n := m.sections()
	switch {
	case l.main.Type != m.typ:
		return tampered("main header: type %#x, signed %#x", l.main.Type, m.typ)
	case l.main.Version != m.version:
		return tampered("main header: version %d, signed %d", l.main.Version, m.version)
	case l.main.TypeExt != m.typeExt:
		return tampered("main header: type ext %x, signed %x", l.main.TypeExt, m.typeExt)
	case l.n != n+1:
		return tampered("main header: %d sections, signed %d and the signature section", l.n, n)
	}
	for i := 0; i < n; i++ {
		got, want := l.entry(i), m.table[i*bpx.SectionHeaderSize:(i+1)*bpx.SectionHeaderSize]
		if !bytes.Equal(got, want) {
			return tampered("section %d: %s", i, headerDiff(got, want))
		}
	}
	sh := l.sec(n)
	end := sh.Pointer + uint64(sh.USize)
	switch {
	case m.start != uint64(len(l.head)):
		return tampered("the section table ends at %d, the signed data starts at %d", len(l.head), m.start)
	case sh.Pointer != m.end:
		return tampered("the signature section starts at %d, the signed data ends at %d", sh.Pointer, m.end)
	case end != uint64(l.size):
		return tampered("the file is %d bytes, its signature section ends at %d", l.size, end)
	case l.main.FileSize != uint64(l.size):
		return tampered("main header: FileSize %d, the file is %d bytes", l.main.FileSize, l.size)
	case !l.checksumOK():
		return tampered("main header: checksum %#x, the header and table sum to %#x", l.main.Checksum, headerChecksum(l.head))
	}
	return nil
}

// headerDiff names the fields in which section header got differs from
// the signed one.
func headerDiff(got, want []byte) string {
	g, w := bpx.UnmarshalSectionHeader(got), bpx.UnmarshalSectionHeader(want)
	var d []string
	add := func(field string, a, b any) {
		d = append(d, fmt.Sprintf("%s %v, signed %v", field, a, b))
	}
	if g.Pointer != w.Pointer {
		add("Pointer", g.Pointer, w.Pointer)
	}
	if g.CSize != w.CSize {
		add("CSize", g.CSize, w.CSize)
	}
	if g.USize != w.USize {
		add("USize", g.USize, w.USize)
	}
	if g.Checksum != w.Checksum {
		add("Checksum", fmt.Sprintf("%#x", g.Checksum), fmt.Sprintf("%#x", w.Checksum))
	}
	if g.Type != w.Type {
		add("Type", fmt.Sprintf("%#x", g.Type), fmt.Sprintf("%#x", w.Type))
	}
	if g.Flags != w.Flags {
		add("Flags", fmt.Sprintf("%#x", g.Flags), fmt.Sprintf("%#x", w.Flags))
	}
	if !bytes.Equal(got[22:], want[22:]) {
		add("Reserved", fmt.Sprintf("%x", got[22:]), fmt.Sprintf("%x", want[22:]))
	}
	return strings.Join(d, ", ")
}
