package bpx

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gobpx/bpx/internal/xztool"
)

// flipCheck returns z with one bit flipped in the check of its last
// block, or nil for check None.
func flipCheck(z []byte) []byte {
	off, size := xztool.CheckField(z)
	if size == 0 {
		return nil
	}
	bad := bytes.Clone(z)
	bad[off+size/2] ^= 0x08
	return bad
}

// TestXZChecksThroughSections reads xz sections of each check type that
// xz(1) wrote, small enough for the flat decoder and too large for it, by
// Data and by Open; and the same sections with a flipped bit in the xz
// check. A failed xz check is a corrupt xz stream: an error matching
// ErrFormat, as for zlib's Adler-32; ErrChecksum is for BPX's own
// checksums. The sections carry no BPX checksum, so the xz check alone
// must catch the damage.
func TestXZChecksThroughSections(t *testing.T) {
	all := goSource(t, maxFlatXZ+64<<10)
	for _, data := range [][]byte{all[:1<<20], all} {
		flat := len(data) <= maxFlatXZ
		for _, check := range []string{"none", "crc32", "crc64", "sha256"} {
			z := xztool.Compress(t, data, "-0", "--check="+check)
			bad := flipCheck(z)
			r := open(t, buildContainer('Z', [16]byte{}, []rawSection{
				{1, FlagXZ, z, uint32(len(data)), 0},
				{1, FlagXZ, bad, uint32(len(data)), 0},
			}))
			name := check + map[bool]string{true: " flat", false: " streaming"}[flat]

			sr := new(sectionReader)
			if err := sr.init(r.Sections[0]); err != nil {
				t.Fatal(err)
			}
			if _, isFlat := sr.dec.(*flatXZDecoder); isFlat != flat {
				t.Errorf("%s: decoded whole: %v", name, isFlat)
			}
			sr.Close()
			if flat {
				// The flat decoder takes every check type itself.
				d := getFlatXZ(r.Sections[0].OpenRaw(), len(data), DefaultMaxXZDictionary).(*flatXZDecoder)
				got, err := io.ReadAll(d)
				if err != nil || d.slow != nil || !bytes.Equal(got, data) {
					t.Errorf("%s: flat decoder: %d bytes, %v, fell back: %v", name, len(got), err, d.slow != nil)
				}
				d.put()
			}

			if got, err := r.Sections[0].Data(); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: Data: %d bytes, %v", name, len(got), err)
			}
			if got, err := readOpen(r.Sections[0]); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: Open: %d bytes, %v", name, len(got), err)
			}
			if bad == nil {
				continue
			}
			_, err := r.Sections[1].Data()
			if !errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum) {
				t.Errorf("%s, check flipped: Data: %v, want ErrFormat", name, err)
			}
			_, err = readOpen(r.Sections[1])
			if !errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum) {
				t.Errorf("%s, check flipped: Open: %v, want ErrFormat", name, err)
			}
		}
	}
}

func readOpen(s *Section) ([]byte, error) {
	rc, err := s.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
