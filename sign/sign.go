package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/gobpx/bpx"
)

// SectionType is the section type of the signature section, the last
// section of a signed file.
const SectionType = 0xF0

// ChunkSize is the chunk size of the manifests Sign writes (a file of
// over 129 GiB gets the smallest larger power of two that keeps its
// manifest within MaxSectionSize).
const ChunkSize = 64 << 10

// MaxSignatures is the most signatures a signature section holds.
const MaxSignatures = 64

// MaxSectionSize bounds the signature section Open reads: a manifest of a
// file of 128 GiB in 64 KiB chunks (4 TiB in 2 MiB chunks), and the
// signatures.
const MaxSectionSize = 64<<20 + 1<<20

// Sign writes to dst the BPX file src (size bytes) signed by keys: its
// bytes as they are, but that the section table gains the signature
// section (so every section moves by 24 bytes, which the manifest states)
// and the signature section is appended. A src that is already signed is
// signed anew: if its manifest still matches, its signatures are kept and
// keys' are added (a key signing twice counts once); otherwise they are
// dropped. src is read twice: once to hash, once to copy; the copy is
// checked against a CRC-32C of each chunk taken by the hash pass, so
// that a src changed in between is an error rather than a file that does
// not match its signature. The signature section is one more section:
// a file of bpx.ReferenceMaxSections sections becomes one that the
// reference SDK cannot read through a buffered reader (the package
// writers keep one section free for it; bpx sign warns). The manifest
// states what the src's signature section stated, if anything (see
// Statement.Sign to state a name, a version or an expiry). Sign checks
// the container's layout, not its content: damaged sections, or a
// package whose accelerators (object digests, path index, chunk digests)
// lie about its objects, are signed as they are, and the signature then
// vouches for them. A program signing a file it did not write checks it
// first: bpx sign refuses what bpx verify rejects (for a package,
// pack.Package.VerifyAll's checks).
func Sign(dst io.Writer, src io.ReaderAt, size int64, keys ...*PrivateKey) error {
	return Statement{}.Sign(dst, src, size, keys...)
}

// Sign is the package function Sign, but that the manifest states st: the
// signers state that the file is release st.Version of the package
// st.Name, to be refused after st.Expires. A zero st keeps what src's
// signature section states, when src is signed.
func (st Statement) Sign(dst io.Writer, src io.ReaderAt, size int64, keys ...*PrivateKey) error {
	if err := st.check(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return errors.New("sign: no key to sign with")
	}
	for _, k := range keys {
		if k == nil {
			return errors.New("sign: a nil key")
		}
	}
	s, err := newSource(src, size)
	if err != nil {
		return err
	}
	start := int64(bpx.MainHeaderSize + (s.n+1)*bpx.SectionHeaderSize)
	dataLen := s.dataEnd - s.dataOff
	chunk, err := chooseChunk(s.n, uint64(dataLen))
	if err != nil {
		return err
	}
	m := &manifest{
		chunk: chunk, typ: s.l.main.Type, version: s.l.main.Version, typeExt: s.l.main.TypeExt,
		st:    st,
		table: s.table(start - s.dataOff),
		start: uint64(start), end: uint64(start + dataLen),
		digests: make([]byte, 0, chunkCount(uint64(dataLen), chunk)*sha256.Size),
	}
	buf := chunkBuffer(chunk, dataLen)
	sums := make([]uint32, 0, cap(m.digests)/sha256.Size) // CRC-32C of each chunk, for the copy
	err = forChunks(src, s.dataOff, dataLen, chunk, buf, func(_ int64, p []byte) error {
		d := sha256.Sum256(p)
		m.digests = append(m.digests, d[:]...)
		sums = append(sums, crc32.Checksum(p, castagnoli))
		return nil
	})
	if err != nil {
		return err
	}
	if st.IsZero() && s.old != nil {
		if old, err := parseManifest(s.old.manifest); err == nil {
			m.st = old.st
		}
	}
	if exp := m.st.Expires; !exp.IsZero() && !time.Now().Before(exp) {
		// Every reader would refuse the file.
		return fmt.Errorf("sign: the statement expired on %s: state a later expiry: %w", exp.UTC().Format(time.RFC3339), ErrExpired)
	}
	// A file of many chunks gets a paged manifest: its chunk digests go
	// after the signatures, the manifest holds the digest of each page.
	var pages []byte
	if m.chunkCount() > uint64(pageChunks) {
		pages = m.paginate(pageChunks)
	}
	mb := m.marshal()
	sigs, err := signatures(s.old, mb, keys)
	if err != nil {
		return err
	}
	sec := (&sigSection{manifest: mb, signatures: sigs, paged: pages != nil, pages: pages}).marshal()
	sh := bpx.SectionHeader{Pointer: m.end, CSize: uint32(len(sec)), USize: uint32(len(sec)), Type: SectionType}
	hb := sh.Marshal()
	head := buildHead(s.l.main, append(bytes.Clone(m.table), hb[:]...), int64(m.end)+int64(len(sec)))
	if _, err := dst.Write(head); err != nil {
		return err
	}
	err = forChunks(src, s.dataOff, dataLen, chunk, buf, func(i int64, p []byte) error {
		if crc32.Checksum(p, castagnoli) != sums[i] {
			return fmt.Errorf("sign: the file changed while it was signed (bytes [%d, %d) of the source): %w",
				s.dataOff+i*int64(chunk), s.dataOff+i*int64(chunk)+int64(len(p)), bpx.ErrFormat)
		}
		_, err := dst.Write(p)
		return err
	})
	if err != nil {
		return err
	}
	_, err = dst.Write(sec)
	return err
}

// castagnoli is the CRC-32C table: the copy pass of Sign checks the source
// did not change since the hash pass with it (in hardware on x86 and ARM,
// over 10 times faster than SHA-256), not with a second SHA-256.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// signatures returns the signatures of a new signature section of
// manifest mb: those of old that verify, if old signs mb, and those of
// keys, one per key.
func signatures(old *sigSection, mb []byte, keys []*PrivateKey) ([][]byte, error) {
	var sigs [][]byte
	var signers []PublicKey
	signed := func(k PublicKey) bool { return hasKey(signers, k) }
	if old != nil && bytes.Equal(old.manifest, mb) {
		for _, sig := range old.signatures {
			if k, err := VerifyMessage(sig, mb); err == nil && !signed(k) {
				sigs = append(sigs, bytes.Clone(sig))
				signers = append(signers, k)
			}
		}
	}
	for _, k := range keys {
		if signed(k.Public()) {
			continue
		}
		sig, err := k.SignMessage(mb)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
		signers = append(signers, k.Public())
	}
	if len(sigs) > MaxSignatures {
		return nil, fmt.Errorf("sign: %d signatures, more than %d: %w", len(sigs), MaxSignatures, bpx.ErrTooLarge)
	}
	return sigs, nil
}

// SignFile signs the BPX file name in place (see Sign), replacing it
// atomically with bpx.SaveFile, so that a failure leaves it as it was.
func SignFile(name string, keys ...*PrivateKey) error {
	return Statement{}.SignFile(name, keys...)
}

// SignFile is the package function SignFile, stating st (see
// Statement.Sign).
func (st Statement) SignFile(name string, keys ...*PrivateKey) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return bpx.SaveFile(name, func(w io.Writer) error {
		if err := st.Sign(w, f, fi.Size(), keys...); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return f.Close() // before the rename, for Windows
	})
}

// Strip writes to dst the BPX file src without its signature section, if
// it has one, and reports whether it had.
func Strip(dst io.Writer, src io.ReaderAt, size int64) (bool, error) {
	s, err := newSource(src, size)
	if err != nil {
		return false, err
	}
	if !s.l.signed() {
		_, err := io.Copy(dst, io.NewSectionReader(src, 0, size))
		return false, err
	}
	start := int64(bpx.MainHeaderSize + s.n*bpx.SectionHeaderSize)
	dataLen := s.dataEnd - s.dataOff
	head := buildHead(s.l.main, s.table(start-s.dataOff), start+dataLen)
	if _, err := dst.Write(head); err != nil {
		return true, err
	}
	err = forChunks(src, s.dataOff, dataLen, ChunkSize, chunkBuffer(ChunkSize, dataLen), func(_ int64, p []byte) error {
		_, err := dst.Write(p)
		return err
	})
	return true, err
}

// source is a BPX file to sign or strip, seen without its signature
// section.
type source struct {
	l                *layout
	n                int         // sections before the signature section
	dataOff, dataEnd int64       // the data range: after the table, up to the signature section
	old              *sigSection // the signature section, if there is one and it parses
}

// newSource reads the header and table of src and checks that its
// sections can move: each lies in the data range.
func newSource(src io.ReaderAt, size int64) (*source, error) {
	l, err := readLayout(src, size)
	if err != nil {
		return nil, err
	}
	if !l.checksumOK() {
		return nil, &bpx.ChecksumError{Section: -1, Expected: l.main.Checksum, Actual: headerChecksum(l.head)}
	}
	if i := l.misplaced(); i >= 0 {
		return nil, bpx.NewFormatError(int64(bpx.MainHeaderSize+i*bpx.SectionHeaderSize),
			"section %d is a signature section (type %#x) but not the last", i, SectionType)
	}
	s := &source{l: l, n: l.n, dataOff: int64(len(l.head)), dataEnd: size}
	if l.signed() {
		s.n--
		sh := l.sec(s.n)
		stored := uint64(sh.StoredSize())
		if sh.Pointer < uint64(s.dataOff) || sh.Pointer > uint64(size) || stored > uint64(size)-sh.Pointer {
			return nil, bpx.NewFormatError(int64(bpx.MainHeaderSize+s.n*bpx.SectionHeaderSize),
				"the signature section [%d, %d) lies outside the file's data [%d, %d)", sh.Pointer, sh.Pointer+stored, s.dataOff, size)
		}
		s.dataEnd = int64(sh.Pointer)
		if !sh.Compressed() && stored <= MaxSectionSize {
			b := make([]byte, stored)
			if err := readFull(src, b, s.dataEnd); err != nil {
				return nil, err
			}
			s.old, _ = parseSigSection(b) // one that does not parse is dropped
		}
	}
	for i := 0; i < s.n; i++ {
		sh := l.sec(i)
		stored := uint64(sh.StoredSize())
		if sh.Pointer < uint64(s.dataOff) || sh.Pointer > uint64(s.dataEnd) || stored > uint64(s.dataEnd)-sh.Pointer {
			return nil, bpx.NewFormatError(int64(bpx.MainHeaderSize+i*bpx.SectionHeaderSize),
				"section %d [%d, %d) lies outside the data after the table [%d, %d): it cannot be moved", i, sh.Pointer, sh.Pointer+stored, s.dataOff, s.dataEnd)
		}
	}
	return s, nil
}

// table returns the headers of the sections before the signature section,
// byte for byte, with their pointers moved by shift.
func (s *source) table(shift int64) []byte {
	t := bytes.Clone(s.l.head[bpx.MainHeaderSize : bpx.MainHeaderSize+s.n*bpx.SectionHeaderSize])
	for i := 0; i < len(t); i += bpx.SectionHeaderSize {
		p := binary.LittleEndian.Uint64(t[i:])
		binary.LittleEndian.PutUint64(t[i:], uint64(int64(p)+shift))
	}
	return t
}

// chunkBuffer returns a read buffer for n bytes in chunks: a whole number
// of chunks, 1 MiB or one chunk, but no larger than n rounded up to a
// chunk (a small file gets a small buffer).
func chunkBuffer(chunk uint32, n int64) []byte {
	c := int64(chunk)
	return make([]byte, min(max(c, 1<<20), max((n+c-1)/c*c, 0)))
}

// forChunks calls fn with each chunk of [off, off+n) of src in order (the
// last one possibly shorter), reading buf's size at a time.
func forChunks(src io.ReaderAt, off, n int64, chunk uint32, buf []byte, fn func(i int64, p []byte) error) error {
	c := int64(chunk)
	for done := int64(0); done < n; {
		p := buf[:min(int64(len(buf)), n-done)]
		if err := readFull(src, p, off+done); err != nil {
			return err
		}
		for len(p) > 0 {
			q := p[:min(c, int64(len(p)))]
			if err := fn(done/c, q); err != nil {
				return err
			}
			done += int64(len(q))
			p = p[len(q):]
		}
	}
	return nil
}
