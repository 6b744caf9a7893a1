package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// patchChunks writes the package b again with the records of its chunk
// digests changed by change (the checksum recomputed, as a tool that
// writes a valid container would), and returns it with the chunks b had.
func patchChunks(t testing.TB, b []byte, change func(recs []byte, chunks []Chunk) []byte) ([]byte, []Chunk) {
	t.Helper()
	d, _ := chunkDigestsOf(t, b)
	out := replaceSection(t, b, SectionChunkDigests, bpx.ChecksumCRC32, func(data []byte) []byte {
		recs := change(data[chunkHeaderSize:], d.Chunks)
		binary.LittleEndian.PutUint32(data[20:], uint32(len(recs)/chunkRecordSize))
		return append(data[:chunkHeaderSize], recs...)
	})
	return out, d.Chunks
}

// wrongDigest is a change of patchChunks: one bit of chunk k's digest.
func wrongDigest(k int) func([]byte, []Chunk) []byte {
	return func(recs []byte, _ []Chunk) []byte {
		recs[k*chunkRecordSize+4] ^= 1
		return recs
	}
}

// joinChunks is a change of patchChunks to the package b: its chunks k
// and k+1 as one, with the digest of their bytes (right, but the chunking
// cuts those bytes in two).
func joinChunks(b []byte, k int) func([]byte, []Chunk) []byte {
	return func(recs []byte, c []Chunk) []byte {
		n := c[k].Len + c[k+1].Len
		sum := sha256.Sum256(b[c[k].Off : c[k].Off+int64(n)])
		r := recs[k*chunkRecordSize:]
		binary.LittleEndian.PutUint32(r, n)
		copy(r[4:chunkRecordSize], sum[:])
		return append(recs[:(k+1)*chunkRecordSize], recs[(k+2)*chunkRecordSize:]...)
	}
}

// TestVerifyAllChunkDigests: issue 41 case 5. A chunk digest list that
// does not describe the bytes (a wrong digest; right digests of chunks cut
// elsewhere than the chunking cuts; a list that does not parse) passes
// every read, but no pull can use it: VerifyAll reports it, naming the
// chunk's offset.
func TestVerifyAllChunkDigests(t *testing.T) {
	good := pkgBytes(t, noiseTree(2<<20, 41))
	if err := openBytes(t, good).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a good package: %v", err)
	}
	const k = 7 // the chunk changed
	wrong, chunks := patchChunks(t, good, wrongDigest(k))
	joined, _ := patchChunks(t, good, joinChunks(good, k))
	unparsable, _ := patchChunks(t, good, func(recs []byte, _ []Chunk) []byte {
		binary.LittleEndian.PutUint32(recs[k*chunkRecordSize:], 0) // a chunk of no bytes
		return recs
	})
	at := fmt.Sprintf("offset %d", chunks[k].Off)
	for _, c := range []struct {
		name string
		b    []byte
		want error
		says string
	}{
		{"wrong digest", wrong, bpx.ErrChecksum, at},
		{"cut elsewhere", joined, bpx.ErrChecksum, at},
		{"unparsable", unparsable, bpx.ErrFormat, at},
	} {
		p := openBytes(t, c.b)
		for i := range p.Objects() {
			if _, err := p.ReadObject(i); err != nil {
				t.Fatalf("%s: a read fails: %v", c.name, err)
			}
		}
		err := p.VerifyAll()
		if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.says) {
			t.Errorf("%s: VerifyAll: %v; want %v naming %s", c.name, err, c.want, c.says)
		}
	}
}

// TestEditChecksCarriedChunkDigests: issue 41 case 5. An edit takes the
// chunk digests of the sections it copies from the source's list (see
// chunkSummary): a list that lies about those bytes (a wrong digest,
// chunks cut elsewhere) must not pass into the edited package, where no
// pull could use it. The edit fails naming the source's chunk; a
// Recompress, which copies no section, writes true digests.
func TestEditChecksCarriedChunkDigests(t *testing.T) {
	good := pkgBytes(t, noiseTree(2<<20, 42))
	d, r := chunkDigestsOf(t, good)
	// A chunk in the middle of the largest data section, which an edit
	// adding a file copies.
	var big *bpx.Section
	for _, s := range r.Sections {
		if s.Type == SectionData && (big == nil || s.StoredSize() > big.StoredSize()) {
			big = s
		}
	}
	mid := int64(big.Pointer) + int64(big.StoredSize())/2
	k := 0
	for d.Chunks[k].Off < mid || d.Chunks[k].Len+d.Chunks[k+1].Len > uint32(d.Max) {
		k++
	}
	wrong, _ := patchChunks(t, good, wrongDigest(k))
	joined, _ := patchChunks(t, good, joinChunks(good, k))
	add := func(e *Editor) error { return writeObject(e, "new/file.txt", []byte("new")) }
	for name, b := range map[string][]byte{"wrong digest": wrong, "cut elsewhere": joined} {
		var out bytes.Buffer
		e := NewEditor(&out, openBytes(t, b))
		if err := add(e); err != nil {
			t.Fatal(err)
		}
		err := e.Close()
		if at := fmt.Sprintf("offset %d", d.Chunks[k].Off); !errors.Is(err, bpx.ErrChecksum) || !strings.Contains(fmt.Sprint(err), at) {
			t.Errorf("%s: Close: %v; want ErrChecksum naming %s", name, err, at)
			if err == nil {
				t.Logf("the edited package: VerifyAll %v", openBytes(t, out.Bytes()).VerifyAll())
			}
		}
		fresh := edited(t, b, func(e *Editor) error { e.Recompress(); return add(e) })
		if err := openBytes(t, fresh).VerifyAll(); err != nil {
			t.Errorf("%s: Recompress: VerifyAll: %v", name, err)
		}
	}
}
