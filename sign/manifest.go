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
	sectionMagic    = "BPXSIG\x00\x01"
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
	digests []byte // 32 bytes per chunk
}

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
	for chunk := uint32(ChunkSize); chunk <= maxChunk; chunk *= 2 {
		if manifestSize(n, chunkCount(dataLen, chunk)) <= MaxSectionSize-sectionOverhead {
			return chunk, nil
		}
	}
	return 0, fmt.Errorf("sign: a manifest of %d sections over %d bytes does not fit in a signature section of %d bytes: %w",
		n, dataLen, MaxSectionSize, bpx.ErrTooLarge)
}

// marshal encodes m.
func (m *manifest) marshal() []byte {
	b := make([]byte, 0, manifestSize(m.sections(), uint64(len(m.digests)/sha256.Size))+statementSize)
	b = append(b, cond(m.st.IsZero(), manifestMagic, manifestMagicV2)...)
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
	return append(b, m.digests...)
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
	v2 := false
	if magic := d.take(8, "magic"); magic != nil {
		v2 = string(magic) == manifestMagicV2
		if !v2 && string(magic) != manifestMagic {
			d.fail("magic %q, not %q or %q", magic, manifestMagic, manifestMagicV2)
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
	if d.err == nil {
		rest := uint64(len(b) - d.off)
		if want := m.chunkCount(); rest%sha256.Size != 0 || rest/sha256.Size != want {
			d.fail("%d bytes of digests, the data range needs %d chunks of %d bytes", rest, want, m.chunk)
		}
	}
	m.digests = d.take(uint64(len(b)-d.off), "digests")
	if d.err != nil {
		return nil, fmt.Errorf("manifest: %w", d.err)
	}
	return m, nil
}

// sigSection is the content of a signature section.
type sigSection struct {
	manifest   []byte   // the manifest as stored: what each signature signs
	signatures [][]byte // SSHSIG blobs
}

// marshal encodes s.
func (s *sigSection) marshal() []byte {
	n := 8 + 4 + len(s.manifest) + 4
	for _, sig := range s.signatures {
		n += 4 + len(sig)
	}
	b := make([]byte, 0, n)
	b = append(b, sectionMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.manifest)))
	b = append(b, s.manifest...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.signatures)))
	for _, sig := range s.signatures {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(sig)))
		b = append(b, sig...)
	}
	return b
}

// parseSigSection decodes a signature section; its slices alias b. Every
// byte of b must belong to a field.
func parseSigSection(b []byte) (*sigSection, error) {
	d := &decoder{b: b}
	if magic := d.take(8, "magic"); magic != nil && string(magic) != sectionMagic {
		d.fail("magic %q, not %q", magic, sectionMagic)
	}
	s := &sigSection{}
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
	if d.err == nil && d.off != len(b) {
		d.fail("%d bytes after the last signature", len(b)-d.off)
	}
	if d.err != nil {
		return nil, fmt.Errorf("signature section: %w", d.err)
	}
	return s, nil
}

// cond returns a if c, else b.
func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}
