package sign_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// TestSignOpen: a signed container reads as before in the container
// reader (which skips the signature section) and through a Verified, and
// Sign moved every section by 24 bytes and kept its bytes.
func TestSignOpen(t *testing.T) {
	orig := container(t, 200<<10, 300<<10)
	k := testKey(t, "modder@example")
	signed := signBytes(t, orig, k)

	lay := parseFileLayout(t, signed)
	if lay.n != 5 || lay.start != 40+24*5 || lay.sigEnd != int64(len(signed)) {
		t.Fatalf("layout %+v of a %d-byte file", lay, len(signed))
	}
	if !bytes.Equal(signed[lay.start:lay.end], orig[40+24*4:]) {
		t.Fatal("the data bytes changed")
	}
	src, err := bpx.NewReader(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	want := sectionsData(t, src)

	// Without package sign: the signature section is one more section.
	plain, err := bpx.NewReader(bytes.NewReader(signed), int64(len(signed)))
	if err != nil {
		t.Fatal(err)
	}
	got := sectionsData(t, plain)
	if len(got) != len(want)+1 || plain.Sections[4].Type != sign.SectionType || plain.Header.Type != 'T' {
		t.Fatalf("%d sections, last of type %#x", len(got), plain.Sections[len(got)-1].Type)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) || plain.Sections[i].Pointer != src.Sections[i].Pointer+24 {
			t.Fatalf("section %d differs", i)
		}
	}

	v, err := open(signed, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	if s := v.Signers(); len(s) != 1 || s[0].Comment != "modder@example" || !s[0].Equal(k.Public()) {
		t.Fatalf("signers %v", s)
	}
	if v.Size() != int64(len(signed)) {
		t.Fatalf("size %d", v.Size())
	}
	vr, err := bpx.NewReader(v, v.Size())
	if err != nil {
		t.Fatal(err)
	}
	got = sectionsData(t, vr)
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("verified section %d differs", i)
		}
	}
	all, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	if err != nil || !bytes.Equal(all, signed) {
		t.Fatalf("reading the whole verified file: %v", err)
	}
	if err := v.VerifyAll(); err != nil {
		t.Fatal(err)
	}
}

// TestReadAtRanges: reads at every kind of offset and length, across the
// header, chunk, cache and signature section boundaries, return the
// file's bytes with io.ReaderAt's EOF rules.
func TestReadAtRanges(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 150<<10, 100<<10), k)
	v, err := open(signed, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(signed))
	lay := parseFileLayout(t, signed)
	points := []int64{0, 1, 39, 40, lay.start - 1, lay.start, lay.start + 1, lay.start + sign.ChunkSize - 1,
		lay.start + sign.ChunkSize, lay.start + 2*sign.ChunkSize + 5, lay.end - 1, lay.end, lay.end + 1, size - 1, size}
	lengths := []int64{0, 1, 7, 4096, sign.ChunkSize - 1, sign.ChunkSize, sign.ChunkSize + 1, 3*sign.ChunkSize + 17, size}
	for _, off := range points {
		for _, n := range lengths {
			p := make([]byte, n)
			got, err := v.ReadAt(p, off)
			want := min(n, size-off)
			if int64(got) != want || !bytes.Equal(p[:got], signed[off:off+want]) {
				t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d bytes", n, off, got, err, want)
			}
			if (err == io.EOF) != (want < n || off >= size) || (err != nil && err != io.EOF) {
				t.Fatalf("ReadAt(%d bytes, %d): error %v", n, off, err)
			}
		}
	}
	if n, err := v.ReadAt(make([]byte, 1), size+10); n != 0 || err != io.EOF {
		t.Fatalf("beyond the end: %d, %v", n, err)
	}
	if _, err := v.ReadAt(make([]byte, 1), -1); err == nil {
		t.Fatal("negative offset: no error")
	}
}

// TestSignAgain: signing a signed file keeps its signatures and adds the
// new keys' (a key signing twice counts once), without moving sections
// again; signing one whose data changed drops the old signatures.
func TestSignAgain(t *testing.T) {
	a, b := testKey(t, "a"), testKey(t, "b")
	orig := container(t, 100<<10, 0)
	one := signBytes(t, orig, a)
	two := signBytes(t, one, b)
	again := signBytes(t, two, a, b)
	if !bytes.Equal(again, two) {
		t.Fatal("signing again with the same keys changed the file")
	}
	st, err := sign.Inspect(bytes.NewReader(two), int64(len(two)))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Signed || !st.Matches || st.Problem != nil || len(st.Signatures) != 2 ||
		!st.Signatures[0].Key.Equal(a.Public()) || !st.Signatures[1].Key.Equal(b.Public()) ||
		!st.Signatures[0].Valid || !st.Signatures[1].Valid {
		t.Fatalf("status %+v", st)
	}
	if l1, l2 := parseFileLayout(t, one), parseFileLayout(t, two); l1.start != l2.start || l1.end != l2.end {
		t.Fatalf("layouts %+v and %+v", l1, l2)
	}
	for _, k := range []*sign.PrivateKey{a, b} {
		if _, err := open(two, ring(k)); err != nil {
			t.Fatalf("key %s: %v", k.Public().Comment, err)
		}
	}
	v, err := open(two, ring(b, a))
	if err != nil || len(v.Signers()) != 2 || v.Signers()[0].Comment != "a" {
		t.Fatalf("both keys: %v, %v", v.Signers(), err)
	}

	// The data changed after signing: b signs what is there now; a's
	// signature of the old bytes is dropped.
	changed := bytes.Clone(two)
	lay := parseFileLayout(t, changed)
	changed[lay.start+10] ^= 1
	resigned := signBytes(t, changed, b)
	st, err = sign.Inspect(bytes.NewReader(resigned), int64(len(resigned)))
	if err != nil || len(st.Signatures) != 1 || !st.Signatures[0].Key.Equal(b.Public()) || !st.Matches {
		t.Fatalf("re-signed changed file: %+v, %v", st, err)
	}
	if _, err := open(resigned, ring(a)); !errors.Is(err, sign.ErrUntrusted) {
		t.Fatalf("a's signature kept: %v", err)
	}
}

// TestStrip: Strip gives back the unsigned file byte for byte, and copies
// an unsigned file as it is.
func TestStrip(t *testing.T) {
	orig := container(t, 70<<10, 70<<10)
	signed := signBytes(t, orig, testKey(t, "k"), testKey(t, "l"))
	var out bytes.Buffer
	had, err := sign.Strip(&out, bytes.NewReader(signed), int64(len(signed)))
	if err != nil || !had || !bytes.Equal(out.Bytes(), orig) {
		t.Fatalf("Strip: %v, %v, equal %v", had, err, bytes.Equal(out.Bytes(), orig))
	}
	out.Reset()
	had, err = sign.Strip(&out, bytes.NewReader(orig), int64(len(orig)))
	if err != nil || had || !bytes.Equal(out.Bytes(), orig) {
		t.Fatalf("Strip of an unsigned file: %v, %v", had, err)
	}
	if _, err := open(orig, ring(testKey(t, "k"))); !errors.Is(err, sign.ErrUnsigned) || !errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("Open of the stripped file: %v", err)
	}
	st, err := sign.Inspect(bytes.NewReader(orig), int64(len(orig)))
	if err != nil || st.Signed || st.Problem != nil || len(st.Signatures) != 0 {
		t.Fatalf("Inspect of an unsigned file: %+v, %v", st, err)
	}
}

// TestSignFile signs a file in place.
func TestSignFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "mod.bpx")
	orig := container(t, 1000, 1000)
	if err := os.WriteFile(name, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	k := testKey(t, "k")
	if err := sign.SignFile(name, k); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(name)
	if err != nil || !bytes.Equal(got, signBytes(t, orig, k)) {
		t.Fatalf("signed file differs: %v", err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	// A file that is not BPX is left as it was.
	if err := os.WriteFile(name, []byte("not a BPX file at all, but long enough for a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sign.SignFile(name, k); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), name) {
		t.Fatalf("SignFile of a text file: %v", err)
	}
	if got, _ := os.ReadFile(name); !bytes.HasPrefix(got, []byte("not a BPX")) {
		t.Fatal("the file changed")
	}
}

// TestSignRefuses: what Sign cannot sign is an error that says why.
func TestSignRefuses(t *testing.T) {
	k := testKey(t, "k")
	orig := container(t, 100, 100)
	var out bytes.Buffer
	if err := sign.Sign(&out, bytes.NewReader(orig), int64(len(orig))); err == nil {
		t.Error("no key: no error")
	}
	if err := sign.Sign(&out, bytes.NewReader(orig), int64(len(orig)), nil); err == nil {
		t.Error("a nil key: no error")
	}
	bad := bytes.Clone(orig)
	bad[30] ^= 1 // the type ext, under the header checksum
	if err := sign.Sign(&out, bytes.NewReader(bad), int64(len(bad)), k); !errors.Is(err, bpx.ErrChecksum) {
		t.Errorf("bad header checksum: %v", err)
	}
	v0 := bytes.Clone(orig)
	v0[20] = 0
	if err := sign.Sign(&out, bytes.NewReader(v0), int64(len(v0)), k); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("version 0: %v", err)
	}
	// A section pointing into the header cannot move.
	into := bytes.Clone(orig)
	into[40] = 0
	into[41] = 0
	rebuild(into)
	if err := sign.Sign(&out, bytes.NewReader(into), int64(len(into)), k); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "section 0") {
		t.Errorf("section inside the header: %v", err)
	}
	if err := sign.Sign(&out, bytes.NewReader(orig[:len(orig)-1]), int64(len(orig)-1), k); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("truncated: %v", err)
	}
}

// changingReader returns other bytes the second time a range is read.
type changingReader struct {
	b     []byte
	reads map[int64]int
}

func (c *changingReader) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, c.b[off:])
	c.reads[off]++
	if c.reads[off] == 2 && off >= 100 && n > 0 {
		p[0] ^= 1
	}
	return n, nil
}

// TestSignSourceChanges: a source that changes between the hash pass and
// the copy is an error, not a file that does not match its signature.
func TestSignSourceChanges(t *testing.T) {
	orig := container(t, 100<<10, 0)
	err := sign.Sign(io.Discard, &changingReader{b: orig, reads: map[int64]int{}}, int64(len(orig)), testKey(t, "k"))
	if err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("got %v", err)
	}
}

// TestEmptyContainer: a container without sections signs, opens and
// reads; its data range is empty.
func TestEmptyContainer(t *testing.T) {
	var buf bytes.Buffer
	if err := bpx.NewWriter(&buf).Close(); err != nil {
		t.Fatal(err)
	}
	k := testKey(t, "k")
	signed := signBytes(t, buf.Bytes(), k)
	v, err := open(signed, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	if err != nil || !bytes.Equal(all, signed) || v.VerifyAll() != nil {
		t.Fatalf("read %v", err)
	}
	var out bytes.Buffer
	if had, err := sign.Strip(&out, bytes.NewReader(signed), int64(len(signed))); !had || err != nil || !bytes.Equal(out.Bytes(), buf.Bytes()) {
		t.Fatalf("Strip: %v, %v", had, err)
	}
}

// TestReadAtAllocations: small reads served from cached chunks allocate
// nothing; a read of whole chunks is checked in the caller's buffer.
func TestReadAtAllocations(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 1<<20, 0), k)
	v, err := open(signed, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	lay := parseFileLayout(t, signed)
	p := make([]byte, 4096)
	if _, err := v.ReadAt(p, lay.start+100); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { v.ReadAt(p, lay.start+5000) }); a != 0 {
		t.Errorf("a cached read: %v allocations", a)
	}
	whole := make([]byte, 8*sign.ChunkSize)
	if a := testing.AllocsPerRun(10, func() { v.ReadAt(whole, lay.start) }); a != 0 {
		t.Errorf("a read of whole chunks: %v allocations", a)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestOpenReadsNoData: Open and Inspect read the header, the table and
// the signature section, not a byte of the data.
func TestOpenReadsNoData(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 1<<20, 1<<20), k)
	lay := parseFileLayout(t, signed)
	want := lay.start + lay.sigEnd - lay.end
	c := &countingReader{r: bytes.NewReader(signed)}
	if _, err := sign.Open(c, int64(len(signed)), ring(k)); err != nil || c.n != want {
		t.Fatalf("Open read %d bytes (%v), want %d", c.n, err, want)
	}
	c.n = 0
	if _, err := sign.Inspect(c, int64(len(signed))); err != nil || c.n != want {
		t.Fatalf("Inspect read %d bytes (%v), want %d", c.n, err, want)
	}
}
