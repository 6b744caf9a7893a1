package sign_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync/atomic"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// pagedFile signs a container of rawSize random bytes with pages of 64
// chunks of 64 KiB (4 MiB of file a page).
func pagedFile(t testing.TB, rawSize int, keys ...*sign.PrivateKey) (unsigned, signed []byte) {
	t.Helper()
	defer sign.SetPageChunks(64)()
	unsigned = container(t, rawSize, 1000)
	return unsigned, signBytes(t, unsigned, keys...)
}

func TestPagedManifest(t *testing.T) {
	k1, k2 := testKey(t, "paged-1"), testKey(t, "paged-2")
	unsigned, signed := pagedFile(t, 9<<20, k1)
	lay := parseFileLayout(t, signed)
	if got := string(signed[lay.end : lay.end+8]); got != "BPXSIG\x00\x02" {
		t.Fatalf("signature section magic %q: the manifest is not paged", got)
	}
	v, err := open(signed, ring(k1))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(signed))
	if _, err := v.ReadAt(got, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if !bytes.Equal(got, signed) {
		t.Fatal("the file read through Verified differs")
	}
	if err := v.VerifyAll(); err != nil {
		t.Fatal(err)
	}
	if st, err := sign.Inspect(bytes.NewReader(signed), int64(len(signed))); err != nil || !st.Matches || len(st.Signatures) != 1 {
		t.Fatalf("Inspect: %+v, %v", st, err)
	}
	// Signed again: both signatures, one layout; stripped: the original.
	twice := func() []byte { defer sign.SetPageChunks(64)(); return signBytes(t, signed, k2) }()
	if v, err := open(twice, ring(k1)); err != nil || len(v.Signers()) != 1 {
		t.Fatalf("signed twice, opened with the first key: %v", err)
	}
	if _, err := open(twice, ring(k2)); err != nil {
		t.Fatalf("signed twice, opened with the second key: %v", err)
	}
	var out bytes.Buffer
	if ok, err := sign.Strip(&out, bytes.NewReader(twice), int64(len(twice))); !ok || err != nil || !bytes.Equal(out.Bytes(), unsigned) {
		t.Fatalf("Strip: %v %v", ok, err)
	}
	// The file's container reads through the Verified as it is.
	rd, err := bpx.NewReader(v, v.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rd.Sections {
		if err := s.Verify(); err != nil {
			t.Errorf("section %d: %v", s.Index, err)
		}
	}
	if err := v.VerifyGaps(rd); err != nil {
		t.Error(err)
	}
}

// TestPagedManifestTampered changes a chunk digest in the signature
// section, a page digest in the manifest and a data byte.
func TestPagedManifestTampered(t *testing.T) {
	k := testKey(t, "paged")
	_, signed := pagedFile(t, 9<<20, k)
	lay := parseFileLayout(t, signed)
	pagesEnd := lay.sigEnd
	chunks := (lay.end - lay.start + 65535) / 65536
	pagesStart := pagesEnd - 32*chunks

	// A chunk digest of page 1 (chunks 64 to 127): Open reads no page;
	// reading chunk 70 fails, and so does VerifyAll.
	b := bytes.Clone(signed)
	b[pagesStart+32*70] ^= 1
	v, err := open(b, ring(k))
	if err != nil {
		t.Fatalf("Open read the chunk digests: %v", err)
	}
	p := make([]byte, 10)
	if _, err := v.ReadAt(p, lay.start+70*65536+5); !errors.Is(err, sign.ErrTampered) {
		t.Errorf("read of a chunk whose digest page changed: %v", err)
	}
	if _, err := v.ReadAt(p, lay.start+5); err != nil {
		t.Errorf("read of a chunk of another page: %v", err)
	}
	if err := v.VerifyAll(); !errors.Is(err, sign.ErrTampered) {
		t.Errorf("VerifyAll: %v", err)
	}
	// The chunk digests as the tail of the file: read through Verified,
	// checked.
	if _, err := v.ReadAt(make([]byte, 64), pagesStart+32*70); !errors.Is(err, sign.ErrTampered) {
		t.Errorf("read of the changed digest page: %v", err)
	}
	// A page digest of the manifest: no signature verifies.
	b = bytes.Clone(signed)
	mlen := int64(binary.LittleEndian.Uint32(signed[lay.end+8:]))
	b[lay.end+12+mlen-1] ^= 1 // the last page digest
	if _, err := open(b, ring(k)); !errors.Is(err, sign.ErrTampered) {
		t.Errorf("Open of a changed signature section: %v", err)
	}
	// Data.
	b = bytes.Clone(signed)
	b[lay.start+100*65536] ^= 1
	v, err = open(b, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	var ce *sign.ChunkError
	if _, err := v.ReadAt(p, lay.start+100*65536); !errors.As(err, &ce) || ce.Chunk != 100 {
		t.Errorf("read of a changed chunk: %v", err)
	}
}

// rangeCounter counts the bytes read in [from, to).
type rangeCounter struct {
	r        io.ReaderAt
	from, to int64
	n        atomic.Int64
}

func (c *rangeCounter) ReadAt(p []byte, off int64) (int, error) {
	lo, hi := max(off, c.from), min(off+int64(len(p)), c.to)
	if hi > lo {
		c.n.Add(hi - lo)
	}
	return c.r.ReadAt(p, off)
}

// TestPagedManifestReadsOnePage: opening a signed file and reading a few
// bytes reads the first 64 KiB of the signature section (its manifest and
// signatures, the whole section if smaller) and one page of chunk digests.
func TestPagedManifestReadsOnePage(t *testing.T) {
	k := testKey(t, "paged")
	for _, size := range []int{9 << 20, 40 << 20} {
		_, signed := pagedFile(t, size, k)
		lay := parseFileLayout(t, signed)
		c := &rangeCounter{r: bytes.NewReader(signed), from: lay.end, to: lay.sigEnd}
		v, err := sign.Open(c, int64(len(signed)), ring(k))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.ReadAt(make([]byte, 100), lay.start+(lay.end-lay.start)/2); err != nil {
			t.Fatal(err)
		}
		if first := min(lay.sigEnd-lay.end, 64<<10); c.n.Load() > first+64*32 {
			t.Errorf("%d bytes: read %d bytes of the signature section, more than its first %d and one page", size, c.n.Load(), first)
		}
	}
}
