package bo3d

import (
	"bytes"
	"errors"
	"testing"
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
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
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
