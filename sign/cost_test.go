package sign

import (
	"bytes"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gobpx/bpx"
)

// countHashes counts the manifest hashes while fn runs.
func countHashes(t *testing.T, fn func()) int64 {
	var n atomic.Int64
	old := hashManifest
	hashManifest = func(b []byte) [sha512.Size]byte { n.Add(1); return old(b) }
	defer func() { hashManifest = old }()
	fn()
	return n.Load()
}

// TestOpenHashesManifestOnce: a file with MaxSignatures signatures, none
// by a trusted key, costs Open one hash of the manifest (it cost one per
// signature: 64 hashes of a 64 MiB manifest took 7.5 s), and a file whose
// length does not match its manifest costs none.
func TestOpenHashesManifestOnce(t *testing.T) {
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	if err := w.WriteSection(1, bpx.SectionOptions{}, bytes.Repeat([]byte("x"), 300000)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var keys []*PrivateKey
	for i := range MaxSignatures {
		k, err := GenerateKey(nil, fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	var signed bytes.Buffer
	if err := Sign(&signed, bytes.NewReader(file.Bytes()), int64(file.Len()), keys...); err != nil {
		t.Fatal(err)
	}
	stranger, err := GenerateKey(nil, "stranger")
	if err != nil {
		t.Fatal(err)
	}
	b := signed.Bytes()
	if n := countHashes(t, func() {
		if _, err := Open(bytes.NewReader(b), int64(len(b)), NewKeyRing(stranger.Public())); !errors.Is(err, ErrUntrusted) {
			t.Errorf("Open: %v, want ErrUntrusted", err)
		}
	}); n != 1 {
		t.Errorf("%d signatures: %d manifest hashes, want 1", MaxSignatures, n)
	}
	// Cut a byte of data out and fix the header: the table no longer
	// matches the manifest's data range, found before any hashing.
	cut := append(bytes.Clone(b[:1000]), b[1001:]...)
	binary.LittleEndian.PutUint64(cut[8:], uint64(len(cut)))
	if n := countHashes(t, func() {
		if _, err := Open(bytes.NewReader(cut), int64(len(cut)), NewKeyRing(keys[0].Public())); !errors.Is(err, ErrTampered) {
			t.Errorf("Open of the cut file: %v, want ErrTampered", err)
		}
	}); n != 0 {
		t.Errorf("the cut file: %d manifest hashes, want 0", n)
	}
}

// stallingReader serves the first n bytes of b, then fails as a server
// that stopped sending.
type stallingReader struct {
	b []byte
	n int64
}

func (r *stallingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.n {
		return 0, io.ErrUnexpectedEOF
	}
	return copy(p, r.b[off:]), nil
}

// TestOpenAllocatesAsBytesArrive: a header that claims 4M sections of a
// 100 GiB file, from a reader that sends 1 MiB of the table and stalls,
// costs Open about what arrived (it allocated 192 MiB up front).
func TestOpenAllocatesAsBytesArrive(t *testing.T) {
	const sections = bpx.DefaultMaxSections
	h := bpx.MainHeader{Type: 'P', Version: bpx.Version2, SectionNum: sections, FileSize: 100 << 30}
	hb := h.Marshal()
	data := make([]byte, 2<<20)
	copy(data, hb[:])
	r := &stallingReader{b: data, n: 1 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Open(r, 100<<30, NewKeyRing())
	runtime.ReadMemStats(&after)
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Open: %v, want the reader's error", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("Open allocated %d MiB for 1 MiB received", got>>20)
	}
}
