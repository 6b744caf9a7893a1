package sign

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/gobpx/bpx"
)

// The magic numbers of the manifest and of the signature section.
const (
	manifestMagic   = "BPXMAN\x00\x01"
	manifestMagicV2 = "BPXMAN\x00\x02" // with a Statement
	manifestMagicV3 = "BPXMAN\x00\x03" // paged digests
	manifestMagicV4 = "BPXMAN\x00\x04" // paged digests, with a Statement
	sectionMagic    = "BPXSIG\x00\x01"
	sectionMagicV2  = "BPXSIG\x00\x02" // the chunk digests follow the signatures
)

// PageChunks is the number of chunk digests in a page of a paged manifest
// (64 KiB of digests, 128 MiB of file at ChunkSize): a file of more chunks
// than that is signed with a paged manifest, which holds the SHA-256 of
// each page rather than every chunk's digest, the digests lying in the
// signature section after the signatures. A trusted read then needs the
// manifest and one page, whatever the file's size.
const PageChunks = 2048

// pageChunks and signChunk are PageChunks and ChunkSize, but for the
// tests, which want paged manifests of small files.
var (
	pageChunks uint32 = PageChunks
	signChunk  uint32 = ChunkSize
)

// The page sizes a manifest may declare, in chunks.
const (
	minPage = 64
	maxPage = 1 << 16
)

// statementSize bounds the statement fields of a manifest: name length,
// name, version, expiry.
const statementSize = 1 + MaxNameLen + 8 + 8

// hashSHA256 is the manifest's hash field for SHA-256.
const hashSHA256 = 1

// The chunk sizes a manifest may declare.
const (
	minChunk = 4 << 10
	maxChunk = 16 << 20
)

// manifestFixed is the size of a manifest without its section headers and
// digests: magic, hash, chunk, type, version, type ext, N, start, end.
const manifestFixed = 8 + 4 + 4 + 1 + 4 + 16 + 4 + 8 + 8

// sectionOverhead bounds what a signature section holds besides its
// manifest: magic, lengths, count and MaxSignatures signatures.
const sectionOverhead = 8 + 4 + 4 + MaxSignatures*(4+maxSignatureBlob) + statementSize

// manifest is what the signatures sign (see the package documentation).
type manifest struct {
	chunk   uint32
	typ     uint8
	version uint32
	typeExt [16]byte
	st      Statement // stored (version 2) unless zero
	table   []byte    // the N section headers, 24 bytes each
	start   uint64    // the data range [start, end)
	end     uint64
	digests []byte // 32 bytes per chunk; nil when paged
	// A paged manifest (page > 0) holds the digest of each page of page
	// chunk digests instead.
	page     uint32
	pageSums []byte // 32 bytes per page
}

// pages returns the number of pages of a paged manifest.
func (m *manifest) pages() uint64 { return chunkCount(m.chunkCount(), m.page) }

// sections returns N, the number of sections before the signature section.
func (m *manifest) sections() int { return len(m.table) / bpx.SectionHeaderSize }

// chunkCount returns the number of chunks of the data range.
func (m *manifest) chunkCount() uint64 { return chunkCount(m.end-m.start, m.chunk) }

// digest returns the digest of chunk i.
func (m *manifest) digest(i int64) []byte { return m.digests[i*sha256.Size : (i+1)*sha256.Size] }

// chunkCount returns ceil(n / chunk).
func chunkCount(n uint64, chunk uint32) uint64 {
	c := n / uint64(chunk)
	if n%uint64(chunk) != 0 {
		c++
	}
	return c
}

// manifestSize returns the size of a manifest of n sections and
// chunks digests, saturating instead of overflowing.
func manifestSize(n int, chunks uint64) uint64 {
	hi, d := bits.Mul64(chunks, sha256.Size)
	if hi != 0 {
		return 1<<64 - 1
	}
	s, carry := bits.Add64(d, manifestFixed+uint64(n)*bpx.SectionHeaderSize, 0)
	if carry != 0 {
		return 1<<64 - 1
	}
	return s
}

// chooseChunk returns the chunk size for a manifest of n sections over
// dataLen bytes: ChunkSize, or the smallest larger power of two that keeps
// the signature section within MaxSectionSize (files over 129 GiB).
func chooseChunk(n int, dataLen uint64) (uint32, error) {
	for chunk := signChunk; chunk <= maxChunk; chunk *= 2 {
		if manifestSize(n, chunkCount(dataLen, chunk)) <= MaxSectionSize-sectionOverhead {
			return chunk, nil
		}
	}
	return 0, fmt.Errorf("sign: a manifest of %d sections over %d bytes does not fit in a signature section of %d bytes: %w",
		n, dataLen, MaxSectionSize, bpx.ErrTooLarge)
}

// marshal encodes m.
func (m *manifest) marshal() []byte {
	b := make([]byte, 0, manifestSize(m.sections(), uint64(len(m.digests)/sha256.Size))+statementSize+4+uint64(len(m.pageSums)))
	switch {
	case m.page > 0:
		b = append(b, cond(m.st.IsZero(), manifestMagicV3, manifestMagicV4)...)
	default:
		b = append(b, cond(m.st.IsZero(), manifestMagic, manifestMagicV2)...)
	}
	b = append(b, hashSHA256, 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, m.chunk)
	b = append(b, m.typ)
	b = binary.LittleEndian.AppendUint32(b, m.version)
	b = append(b, m.typeExt[:]...)
	if !m.st.IsZero() {
		b = append(b, byte(len(m.st.Name)))
		b = append(b, m.st.Name...)
		b = binary.LittleEndian.AppendUint64(b, m.st.Version)
		var exp uint64
		if !m.st.Expires.IsZero() {
			exp = uint64(m.st.Expires.Unix())
		}
		b = binary.LittleEndian.AppendUint64(b, exp)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(m.sections()))
	b = append(b, m.table...)
	b = binary.LittleEndian.AppendUint64(b, m.start)
	b = binary.LittleEndian.AppendUint64(b, m.end)
	if m.page > 0 {
		b = binary.LittleEndian.AppendUint32(b, m.page)
		return append(b, m.pageSums...)
	}
	return append(b, m.digests...)
}

// paginate turns m's digests into pages of page chunks: pageSums, and
// the digests (returned) go to the signature section.
func (m *manifest) paginate(page uint32) []byte {
	digests := m.digests
	m.page, m.digests, m.pageSums = page, nil, nil
	for i := 0; i < len(digests); i += int(page) * sha256.Size {
		d := sha256.Sum256(digests[i:min(len(digests), i+int(page)*sha256.Size)])
		m.pageSums = append(m.pageSums, d[:]...)
	}
	return digests
}

// errShort is the error of a field that runs past the end of its bytes.
var errShort = errors.New("truncated")

// decoder reads little-endian fields from a byte slice, checking each
// length against what remains.
type decoder struct {
	b   []byte
	off int
	err error
}

// take returns the next n bytes, or nil (and sets d.err) when fewer remain.
func (d *decoder) take(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.err = fmt.Errorf("%s at byte %d: %d bytes, %d remain: %w", what, d.off, n, len(d.b)-d.off, errShort)
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *decoder) u8(what string) uint8 {
	if p := d.take(1, what); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u32(what string) uint32 {
	if p := d.take(4, what); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64(what string) uint64 {
	if p := d.take(8, what); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// fail sets d.err unless it is set.
func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

// parseManifest decodes a manifest; m.table and m.digests alias b.
func parseManifest(b []byte) (*manifest, error) {
	d := &decoder{b: b}
	m := &manifest{}
	v2, paged := false, false
	if magic := d.take(8, "magic"); magic != nil {
		switch string(magic) {
		case manifestMagic:
		case manifestMagicV2:
			v2 = true
		case manifestMagicV3:
			paged = true
		case manifestMagicV4:
			v2, paged = true, true
		default:
			d.fail("magic %q, not %q to %q", magic, manifestMagic, manifestMagicV4)
		}
	}
	if hash := d.take(4, "hash"); hash != nil && (hash[0] != hashSHA256 || hash[1]|hash[2]|hash[3] != 0) {
		d.fail("hash %d: only 1 (SHA-256) is known", hash[0])
	}
	m.chunk = d.u32("chunk size")
	if d.err == nil && (m.chunk < minChunk || m.chunk > maxChunk || m.chunk&(m.chunk-1) != 0) {
		d.fail("chunk size %d: not a power of two from %d to %d", m.chunk, minChunk, maxChunk)
	}
	m.typ = d.u8("type")
	m.version = d.u32("version")
	if ext := d.take(16, "type ext"); ext != nil {
		m.typeExt = [16]byte(ext)
	}
	if v2 {
		name := d.take(uint64(d.u8("name length")), "name")
		if d.err == nil {
			if err := checkName(string(name)); err != nil {
				d.fail("name %q: %v", name, err)
			}
		}
		m.st.Name = string(name)
		m.st.Version = d.u64("release version")
		exp := d.u64("expiry")
		if d.err == nil && exp > math.MaxInt64 {
			d.fail("expiry %d: past the year 292277026596", exp)
		}
		if exp != 0 {
			m.st.Expires = time.Unix(int64(exp), 0).UTC()
		}
	}
	n := d.u32("section count")
	m.table = d.take(uint64(n)*bpx.SectionHeaderSize, "section headers")
	m.start = d.u64("data start")
	m.end = d.u64("data end")
	if d.err == nil && m.end < m.start {
		d.fail("data range [%d, %d) ends before it starts", m.start, m.end)
	}
	if paged {
		m.page = d.u32("page size")
		if d.err == nil && (m.page < minPage || m.page > maxPage || m.page&(m.page-1) != 0) {
			d.fail("page of %d chunks: not a power of two from %d to %d", m.page, minPage, maxPage)
		}
	}
	if d.err == nil {
		rest := uint64(len(b) - d.off)
		switch want := m.chunkCount(); {
		case paged && (rest%sha256.Size != 0 || rest/sha256.Size != m.pages()):
			d.fail("%d bytes of page digests, the data range needs %d pages of %d chunks", rest, m.pages(), m.page)
		case !paged && (rest%sha256.Size != 0 || rest/sha256.Size != want):
			d.fail("%d bytes of digests, the data range needs %d chunks of %d bytes", rest, want, m.chunk)
		}
	}
	if paged {
		m.pageSums = d.take(uint64(len(b)-d.off), "page digests")
	} else {
		m.digests = d.take(uint64(len(b)-d.off), "digests")
	}
	if d.err != nil {
		return nil, fmt.Errorf("manifest: %w", d.err)
	}
	return m, nil
}

// sigSection is the content of a signature section.
type sigSection struct {
	manifest   []byte   // the manifest as stored: what each signature signs
	signatures [][]byte // SSHSIG blobs
	// A section of a paged manifest (magic 2) ends with the chunk
	// digests: those a signer writes (pages), or where a reader finds
	// them, from byte head of the section to its end.
	paged bool
	pages []byte
	head  int
}

// marshal encodes s.
func (s *sigSection) marshal() []byte {
	n := 8 + 4 + len(s.manifest) + 4
	for _, sig := range s.signatures {
		n += 4 + len(sig)
	}
	b := make([]byte, 0, n+len(s.pages))
	b = append(b, cond(s.paged, sectionMagicV2, sectionMagic)...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.manifest)))
	b = append(b, s.manifest...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.signatures)))
	for _, sig := range s.signatures {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(sig)))
		b = append(b, sig...)
	}
	return append(b, s.pages...)
}

// parseSigSection decodes a whole signature section; its slices alias b.
// Every byte of b must belong to a field; the chunk digests of a section
// of magic 2 are s.pages.
func parseSigSection(b []byte) (*sigSection, error) {
	s, need, err := parseSigHead(b, len(b))
	if err == nil && need > len(b) {
		err = fmt.Errorf("signature section: %w", errShort) // not reached: b is whole
	}
	if err != nil {
		return nil, err
	}
	if s.paged {
		s.pages = b[s.head:]
	}
	return s, nil
}

// parseSigHead decodes the magic, the manifest and the signatures of a
// signature section of total bytes from b, the first bytes of it (all of
// them for magic 1, whose every byte belongs to those). It returns the
// bytes it needs when b is too short for them (need > len(b)); its slices
// alias b.
func parseSigHead(b []byte, total int) (s *sigSection, need int, err error) {
	if total < 12 {
		return nil, 0, fmt.Errorf("signature section: %d bytes: %w", total, errShort)
	}
	if len(b) < 12 {
		return nil, 12, nil
	}
	d := &decoder{b: b}
	s = &sigSection{}
	switch magic := d.take(8, "magic"); string(magic) {
	case sectionMagic:
		if len(b) < total {
			return nil, total, nil
		}
	case sectionMagicV2:
		s.paged = true
		// Magic, the manifest, the signature count, the signatures:
		// each length bounded by total before more is asked for (in
		// 64 bits: an int is 32 on some platforms).
		mlen := int64(binary.LittleEndian.Uint32(b[8:]))
		if 12+mlen+4 > int64(total) {
			return nil, 0, fmt.Errorf("signature section: manifest of %d bytes in a section of %d", mlen, total)
		}
		off := 12 + int(mlen)
		if off+4 > len(b) {
			return nil, off + 4, nil
		}
		count := binary.LittleEndian.Uint32(b[off:])
		off += 4
		if count == 0 || count > MaxSignatures {
			return nil, 0, fmt.Errorf("signature section: %d signatures: from 1 to %d are allowed", count, MaxSignatures)
		}
		for range int(count) {
			if off+4 > len(b) {
				return nil, off + 4, nil
			}
			off += 4 + int(min(binary.LittleEndian.Uint32(b[off:]), maxSignatureBlob+1))
			if off > total {
				return nil, 0, fmt.Errorf("signature section: signatures run past its end (%d bytes)", total)
			}
		}
		if off > len(b) {
			return nil, off, nil
		}
		d.b, s.head = b[:off], off
	default:
		d.fail("magic %q, not %q or %q", magic, sectionMagic, sectionMagicV2)
	}
	s.manifest = d.take(uint64(d.u32("manifest length")), "manifest")
	count := d.u32("signature count")
	if d.err == nil && (count == 0 || count > MaxSignatures) {
		d.fail("%d signatures: from 1 to %d are allowed", count, MaxSignatures)
	}
	for i := uint32(0); i < count && d.err == nil; i++ {
		n := d.u32("signature length")
		if d.err == nil && n > maxSignatureBlob {
			d.fail("signature %d: %d bytes, more than %d", i, n, maxSignatureBlob)
		}
		s.signatures = append(s.signatures, d.take(uint64(n), fmt.Sprintf("signature %d", i)))
	}
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d bytes after the last signature", len(d.b)-d.off)
	}
	if d.err != nil {
		return nil, 0, fmt.Errorf("signature section: %w", d.err)
	}
	if !s.paged {
		s.head = len(d.b)
	}
	return s, 0, nil
}

// cond returns a if c, else b.
func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}
