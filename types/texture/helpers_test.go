package texture

import (
	"bytes"
	"testing"

	"github.com/gobpx/bpx"
)

// encode writes tex as a container with the given options.
func encode(t testing.TB, tex *Texture, o bpx.SectionOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, tex, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// container writes a 'T' container with the raw TypeExt and one section of
// each given type and content, bypassing this package's checks.
func container(t testing.TB, typ uint8, ext [16]byte, secs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(typ)
	w.SetTypeExt(ext)
	for i := 0; i < len(secs); i += 2 {
		sw, err := w.CreateSection(secs[i].(uint8), bpx.SectionOptions{Checksum: bpx.ChecksumWeak})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sw.Write(secs[i+1].([]byte)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decode opens b and reads its texture.
func decode(b []byte) (*Texture, error) {
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return Read(r)
}

// seq returns n bytes counting from start.
func seq(n int, start byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}
