package bpx

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// flakyReaderAt fails every read while fail is set.
type flakyReaderAt struct {
	r    io.ReaderAt
	fail bool
}

var errFlaky = errors.New("connection reset")

func (f *flakyReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if f.fail {
		return 0, errFlaky
	}
	return f.r.ReadAt(p, off)
}

// TestDamageRemembered: issue 31 item 9. A section whose content fails is
// not decoded again while its stored bytes stay the same: Data, Open and
// OpenPartial return the error found before. Once the stored bytes change
// it is decoded again.
func TestDamageRemembered(t *testing.T) {
	text := partialPayload(300 << 10)
	for name, sec := range partialSections(t, text) {
		t.Run(name, func(t *testing.T) {
			b := buildContainer('P', [16]byte{}, []rawSection{sec})
			rd := open(t, b)
			s := rd.Sections[0]
			at := int(s.Pointer) + len(sec.Stored)/2
			b[at] ^= 0x10 // rd reads b in place
			_, err := s.Data()
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum), "%v", err)
			decodes := s.st.decodes.Load()

			_, err2 := s.Data()
			require.Equal(t, err, err2)
			rc, err2 := s.Open()
			if err2 == nil {
				_, err2 = io.ReadAll(rc)
			}
			require.Equal(t, err, err2)
			p, err2 := s.OpenPartial(nil)
			require.NoError(t, err2)
			_, err2 = p.DecodeTo(int64(len(text)))
			require.Equal(t, err, err2)
			require.Equal(t, decodes, s.st.decodes.Load(), "decoded again")

			b[at] ^= 0x10 // repaired
			got, err := s.Data()
			require.NoError(t, err)
			require.Equal(t, text, got)
		})
	}
}

// TestDamageNotRememberedOnReadError: a decode that fails because the
// source failed is no damage of the section: the next read decodes again.
func TestDamageNotRememberedOnReadError(t *testing.T) {
	text := partialPayload(300 << 10)
	sec := partialSections(t, text)["xz"]
	b := buildContainer('P', [16]byte{}, []rawSection{sec})
	src := &flakyReaderAt{r: bytes.NewReader(b)}
	rd, err := NewReader(src, int64(len(b)))
	require.NoError(t, err)
	s := rd.Sections[0]
	src.fail = true
	_, err = s.Data()
	require.ErrorIs(t, err, errFlaky)
	src.fail = false
	got, err := s.Data()
	require.NoError(t, err)
	require.Equal(t, text, got)
}
