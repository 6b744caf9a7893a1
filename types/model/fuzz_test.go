package model

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

// FuzzRead checks that reading any container with any vertex size never
// panics, that malformed models fail with typed errors whose container-level
// offsets lie inside the input, and that whatever reads validates, encodes
// and reads back equal.
func FuzzRead(f *testing.F) {
	o := bpx.SectionOptions{Checksum: bpx.ChecksumWeak}
	f.Add(container(f, 'M', goldenExt, o, goldenSections()...), uint8(12))
	f.Add(container(f, 'M', goldenExt, o, goldenSections()...), uint8(4))
	f.Add(container(f, 'M', goldenExt, bpx.SectionOptions{Compression: bpx.CompressXZ}, goldenSections()...), uint8(12))
	f.Add(container(f, 'M', goldenExt, o, goldenSections()[:2]...), uint8(12))
	f.Add(container(f, 'M', goldenExt, o, sec{2, raw(uint64(0), uint32(0), uint32(0), uint32(0), uint32(0))}), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, vs uint8) {
		r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.WithMaxSectionSize(1<<20), bpx.SkipChecksums())
		if err != nil {
			return
		}
		m, err := Read(r, int(vs)+1)
		if err != nil {
			var fe *bpx.FormatError
			if errors.As(err, &fe) && fe.Section < 0 && (fe.Offset < 0 || fe.Offset > int64(len(b))) {
				t.Fatalf("offset %d outside the %d-byte input: %v", fe.Offset, len(b), err)
			}
			if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
				t.Fatalf("untyped error %v (%T)", err, err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("read model does not validate: %v", err)
		}
		first := encode(t, m, bpx.SectionOptions{})
		again, err := decode(first, int(vs)+1)
		if err != nil {
			t.Fatalf("re-encoded model does not read: %v", err)
		}
		// Compared by encoding, not reflect.DeepEqual: a NaN in a bone
		// or frame is never equal to itself, but must keep its bits.
		if !bytes.Equal(encode(t, again, bpx.SectionOptions{}), first) {
			t.Fatal("model changed through Encode and Read")
		}
	})
}
