package shader

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/gobpx/bpx"
)

// FuzzRead checks that Detect, ReadPack and ReadSpec never panic on any
// container, that their errors are typed with container-level offsets
// inside the input, and that whatever reads writes back and reads equal.
func FuzzRead(f *testing.F) {
	f.Add(encodePack(f, samplePack()))
	f.Add(container(f, 'S', specExt, specSections()...))
	f.Add(container(f, 'S', PackTypeExt{NumSymbols: 1, Target: TargetAny, Type: TypePipeline}.Marshal(),
		sec{0xFF, []byte("x\x00")}, sec{2, raw(uint32(0), uint32(0), uint16(0x100), uint8(2), uint8(0xFF))}, sec{3, raw(uint8(0))}, sec{1, []byte{1}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.WithMaxSectionSize(1<<20), bpx.SkipChecksums())
		if err != nil {
			return
		}
		check := func(err error) {
			var fe *bpx.FormatError
			if errors.As(err, &fe) && fe.Section < 0 && (fe.Offset < 0 || fe.Offset > int64(len(b))) {
				t.Fatalf("offset %d outside the %d-byte input: %v", fe.Offset, len(b), err)
			}
			if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
				t.Fatalf("untyped error %v (%T)", err, err)
			}
		}
		if _, err := Detect(r); err != nil {
			check(err)
		}
		_ = DescribeTypeExt(r.Header.TypeExt)
		if p, err := ReadPack(r); err != nil {
			check(err)
		} else {
			var buf bytes.Buffer
			if err := EncodePack(&buf, p); err != nil {
				t.Fatalf("read pack does not encode: %v", err)
			}
			again, err := ReadPack(openBytes(t, buf.Bytes()))
			if err != nil {
				t.Fatalf("re-encoded pack does not read: %v", err)
			}
			checkPack(t, again, p)
		}
		if p, err := ReadSpec(r); err != nil {
			check(err)
		} else {
			var buf bytes.Buffer
			if err := EncodeSpec(&buf, p, bpx.SectionOptions{}); err != nil {
				t.Fatalf("read spec pack does not encode: %v", err)
			}
			again, err := ReadSpec(openBytes(t, buf.Bytes()))
			if err != nil {
				t.Fatalf("re-encoded spec pack does not read: %v", err)
			}
			if !reflect.DeepEqual(again, p) {
				t.Fatal("spec pack changed through EncodeSpec and ReadSpec")
			}
		}
	})
}
