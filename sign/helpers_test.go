package sign_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// testKey returns a key derived from name, the same in every run.
func testKey(t testing.TB, name string) *sign.PrivateKey {
	t.Helper()
	seed := sha256.Sum256([]byte(name))
	k, err := sign.GenerateKey(bytes.NewReader(seed[:]), name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ring returns a KeyRing of the public keys of keys.
func ring(keys ...*sign.PrivateKey) *sign.KeyRing {
	var pubs []sign.PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.Public())
	}
	return sign.NewKeyRing(pubs...)
}

// randomBytes returns n bytes that do not compress, the same in every run.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// container writes a BPX file of the sections given, with the project's
// writer: a raw one of random bytes with a weak checksum, an xz one, a
// small CRC32 one and an empty one, in that order of sizes.
func container(t testing.TB, rawSize, xzSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('T')
	w.SetTypeExt([16]byte{1, 2, 3})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteSection(1, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, randomBytes(1, rawSize)))
	must(w.WriteSection(2, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: 0},
		bytes.Repeat([]byte("compressible text "), xzSize/18)))
	must(w.WriteSection(bpx.SectionTypeStrings, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, []byte("a\x00bc\x00")))
	must(w.WriteSection(3, bpx.SectionOptions{}))
	must(w.Close())
	return buf.Bytes()
}

// signBytes signs file with keys.
func signBytes(t testing.TB, file []byte, keys ...*sign.PrivateKey) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := sign.Sign(&out, bytes.NewReader(file), int64(len(file)), keys...); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// open opens file with ring.
func open(file []byte, r *sign.KeyRing) (*sign.Verified, error) {
	return sign.Open(bytes.NewReader(file), int64(len(file)), r)
}

// sectionsData returns the decoded data of every section of the
// container r.
func sectionsData(t testing.TB, r *bpx.Reader) [][]byte {
	t.Helper()
	var out [][]byte
	for _, s := range r.Sections {
		d, err := s.Data()
		if err != nil {
			t.Fatalf("section %d: %v", s.Index, err)
		}
		out = append(out, d)
	}
	return out
}

// fileLayout is a signed file's layout, parsed independently of package
// sign from the format in its documentation.
type fileLayout struct {
	n          int   // sections in the table, the signature section included
	start, end int64 // the data range
	sigEnd     int64 // the end of the signature section
}

func parseFileLayout(t testing.TB, file []byte) fileLayout {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(file[16:]))
	last := file[40+24*(n-1):]
	if last[20] != sign.SectionType {
		t.Fatalf("last section of type %#x", last[20])
	}
	ptr := int64(binary.LittleEndian.Uint64(last))
	return fileLayout{n: n, start: int64(40 + 24*n), end: ptr, sigEnd: ptr + int64(binary.LittleEndian.Uint32(last[12:]))}
}

// rebuild returns file with its main header's checksum recomputed, as an
// attacker who edits the table would.
func rebuild(file []byte) []byte {
	n := int(binary.LittleEndian.Uint32(file[16:]))
	if n > (len(file)-40)/24 {
		return file // the table does not fit: nothing to sum
	}
	sum := bpx.WeakChecksum(bpx.WeakChecksum(0, file[:4]), file[8:40+24*n])
	binary.LittleEndian.PutUint32(file[4:], sum)
	return file
}

// part is one section of a container assemble writes.
type part struct {
	hdr  bpx.SectionHeader
	body []byte
}

// parts returns the sections of file with their stored bytes.
func parts(t testing.TB, file []byte) (bpx.MainHeader, []part) {
	t.Helper()
	r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var ps []part
	for _, s := range r.Sections {
		ps = append(ps, part{s.SectionHeader, file[s.Pointer : s.Pointer+uint64(s.StoredSize())]})
	}
	return r.Header, ps
}

// assemble writes a container of ps in order, each Pointer the running
// offset, with a right FileSize and header checksum: what an attacker
// who rearranges a file writes.
func assemble(main bpx.MainHeader, ps []part) []byte {
	off := uint64(40 + 24*len(ps))
	var table, data []byte
	for _, p := range ps {
		p.hdr.Pointer = off
		hb := p.hdr.Marshal()
		table = append(table, hb[:]...)
		data = append(data, p.body...)
		off += uint64(len(p.body))
	}
	main.SectionNum = uint32(len(ps))
	main.FileSize = off
	hb := main.Marshal()
	return rebuild(append(append(hb[:], table...), data...))
}

// sigBody is a signature section, decoded from the format in the package
// documentation.
type sigBody struct {
	manifest []byte
	sigs     [][]byte
}

func parseSigBody(t testing.TB, b []byte) sigBody {
	t.Helper()
	if string(b[:8]) != "BPXSIG\x00\x01" {
		t.Fatalf("magic %q", b[:8])
	}
	n := binary.LittleEndian.Uint32(b[8:])
	s := sigBody{manifest: b[12 : 12+n]}
	b = b[12+n:]
	count := binary.LittleEndian.Uint32(b)
	b = b[4:]
	for range count {
		l := binary.LittleEndian.Uint32(b)
		s.sigs = append(s.sigs, b[4:4+l])
		b = b[4+l:]
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes after the signatures", len(b))
	}
	return s
}

func (s sigBody) marshal() []byte {
	b := append([]byte("BPXSIG\x00\x01"), binary.LittleEndian.AppendUint32(nil, uint32(len(s.manifest)))...)
	b = append(b, s.manifest...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.sigs)))
	for _, sig := range s.sigs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(sig)))
		b = append(b, sig...)
	}
	return b
}

// withSigBody returns the signed file with its signature section replaced
// by body (header, FileSize and checksum fixed).
func withSigBody(t testing.TB, file []byte, body []byte) []byte {
	t.Helper()
	main, ps := parts(t, file)
	last := &ps[len(ps)-1]
	last.body = body
	last.hdr.CSize, last.hdr.USize = uint32(len(body)), uint32(len(body))
	return assemble(main, ps)
}
