package xzenc

import (
	"bytes"
	"io"
	"testing"

	mxz "github.com/mikelolasagasti/xz"
)

// FuzzEncode: every input round-trips through the decoder bpx reads xz
// sections with, at a small and a large dictionary, with one Encoder
// reused throughout.
func FuzzEncode(f *testing.F) {
	f.Add([]byte(""), uint16(0))
	f.Add([]byte("a"), uint16(1))
	f.Add(bytes.Repeat([]byte("abcabcabd"), 100), uint16(7))
	f.Add([]byte("the quick brown fox jumps over the lazy dog; the quick brown cat"), uint16(3))
	var e Encoder
	f.Fuzz(func(t *testing.T, data []byte, dictSel uint16) {
		dict := MinDict + int(dictSel)*64
		var buf bytes.Buffer
		if err := e.Encode(&buf, data, dict); err != nil {
			t.Fatal(err)
		}
		b := dictByte(dict)
		declared := (2 | int(b)&1) << (b/2 + 11)
		r, err := mxz.NewReader(&buf, uint32(declared))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip: %d of %d bytes, %v", len(got), len(data), err)
		}
	})
}
