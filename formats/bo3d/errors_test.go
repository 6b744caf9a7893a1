package bo3d

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
)

// Every error for bad input matches the bpx sentinel of its class, as the
// module promises, besides the sentinel of this package.
func TestErrorsMatchBPXSentinels(t *testing.T) {
	good := mustEncode(bonedMesh(16))
	decodeErr := func(b []byte) error { _, err := Decode(b); return err }
	_, tooLarge := readLimited(bytes.NewReader(good), len(good)-1)
	_, fits := readLimited(bytes.NewReader(good), len(good))
	if fits != nil {
		t.Fatalf("a file of exactly the limit: %v", fits)
	}
	for _, tc := range []struct {
		name    string
		err     error
		own     error
		bpxKind error
	}{
		{"bad magic", decodeErr(put32(good, 0, 0)), ErrFormat, bpx.ErrFormat},
		{"truncated", decodeErr(good[:len(good)-1]), ErrFormat, bpx.ErrFormat},
		{"version 101", decodeErr(put32(good, 4, 101)), ErrUnsupported, bpx.ErrUnsupported},
		{"past the read limit", tooLarge, ErrTooLarge, bpx.ErrTooLarge},
		{"inconsistent model metadata", readModelErr(t, func(meta *sd.Object) { meta.Set("floatBits", sd.Int32(24)) }), ErrInvalid, bpx.ErrFormat},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(tc.err, tc.own) || !errors.Is(tc.err, tc.bpxKind) {
			t.Errorf("%s: %v does not match %v and %v", tc.name, tc.err, tc.own, tc.bpxKind)
		}
	}
}

// readModelErr writes the boned fixture as a BPX model with its metadata
// changed by tamper, and returns the error of ReadModel.
func readModelErr(t *testing.T, tamper func(*sd.Object)) error {
	m, meta, err := ToModel(bonedMesh(32))
	if err != nil {
		t.Fatal(err)
	}
	tamper(meta)
	data, err := sd.Encode(meta)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	bw := bpx.NewWriter(&buf)
	if err := model.Write(bw, m, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := bw.WriteSection(bpx.SectionTypeStructuredData, bpx.SectionOptions{}, data); err != nil {
		t.Fatal(err)
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadModel(r)
	return err
}

// Read grows its buffer up to the limit, never past it, whatever the
// reader's chunk size.
func TestReadLimitedChunks(t *testing.T) {
	good := mustEncode(bonedMesh(16))
	got, err := readLimited(io.MultiReader(bytes.NewReader(good[:25]), bytes.NewReader(good[25:])), len(good))
	if err != nil || !bytes.Equal(got, good) {
		t.Fatalf("readLimited: %d bytes, %v", len(got), err)
	}
}
