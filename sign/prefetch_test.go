package sign_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// TestPrefetchLocal: from an *os.File, Open hashes the first chunks while
// it checks the signature, and keeps only those that match: a changed
// byte in the first chunk still fails the read of that chunk, and never
// reaches the caller, while the chunks around it read.
func TestPrefetchLocal(t *testing.T) {
	k := testKey(t, "k")
	file := signBytes(t, container(t, 5*sign.ChunkSize, 1000), k)
	rd, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	start := int64(rd.Sections[0].Pointer) // the data range starts here
	for _, tamper := range []bool{false, true} {
		b := bytes.Clone(file)
		if tamper {
			b[start+100] ^= 1
		}
		name := filepath.Join(t.TempDir(), "f.bpx")
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := sign.Open(f, int64(len(b)), ring(k))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 10)
		_, err = v.ReadAt(got, start+95)
		switch {
		case tamper && !errors.Is(err, sign.ErrTampered):
			t.Errorf("tampered first chunk read: %v", err)
		case tamper && !bytes.Equal(got, make([]byte, 10)) && bytes.Equal(got, b[start+95:start+105]):
			t.Errorf("tampered bytes returned")
		case !tamper && (err != nil || !bytes.Equal(got, file[start+95:start+105])):
			t.Errorf("first chunk: %v", err)
		}
		// The second chunk reads either way.
		if _, err := v.ReadAt(got, start+sign.ChunkSize+5); err != nil || !bytes.Equal(got, file[start+sign.ChunkSize+5:start+sign.ChunkSize+15]) {
			t.Errorf("tamper=%v: second chunk: %v", tamper, err)
		}
		f.Close()
	}
}
