package bo3d

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

// FuzzDecode checks that Decode never panics, that every failure is a
// *FormatError matching ErrFormat, and that whatever decodes can be
// encoded again, with encode∘decode stable on its own output.
func FuzzDecode(f *testing.F) {
	for _, fx := range fixtures() {
		b := mustEncode(fx)
		f.Add(b)
		f.Add(b[:len(b)-3])
		f.Add(put32(b, 12, int32(len(b)))) // list length too long
	}
	f.Add(goldenTextured16())
	f.Add([]byte("BO3D"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Decode(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) || !errors.Is(err, bpx.ErrFormat) {
				t.Fatalf("error %v (%T) is not a *FormatError", err, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(b)) {
				t.Fatalf("error offset %d outside the %d-byte input: %v", fe.Offset, len(b), err)
			}
			return
		}
		enc, err := file.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded file cannot be encoded: %v", err)
		}
		if len(enc) > len(b)+3 {
			t.Fatalf("re-encoding grew %d bytes to %d", len(b), len(enc))
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		enc2, err := again.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatal("encode(decode(encode(decode(b)))) != encode(decode(b))")
		}
	})
}

// FuzzReadModel feeds BPX files to ReadModel: no panic, and a file that
// converts must encode as BO3D and convert to a model again.
func FuzzReadModel(f *testing.F) {
	for _, fx := range fixtures() {
		var buf bytes.Buffer
		if err := WriteModel(&buf, fx, bpx.SectionOptions{}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.WithMaxSectionSize(1<<20))
		if err != nil {
			return
		}
		file, err := ReadModel(r)
		if err != nil {
			if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) && !errors.Is(err, bpx.ErrChecksum) {
				t.Fatalf("error %v (%T) matches no bpx sentinel", err, err)
			}
			return
		}
		if _, err := file.MarshalBinary(); err != nil {
			t.Fatalf("converted file does not encode: %v", err)
		}
		if len(file.Entities) <= 1024 {
			if _, _, err := ToModel(file); err != nil {
				t.Fatalf("converted file does not convert back: %v", err)
			}
		}
	})
}
