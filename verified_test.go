package bpx

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenVerified: issue 31 item 1. OpenVerified yields the section's
// bytes like Data; a section whose checksum fails yields no byte at all
// (Open's reader hands out the bytes first); stored bytes that change
// after the section was verified fail the read that meets them with
// ErrChecksum instead of yielding what they decode to.
func TestOpenVerified(t *testing.T) {
	text := partialPayload(3 << 20)
	for name, sec := range partialSections(t, text) {
		t.Run(name, func(t *testing.T) {
			b := buildContainer('P', [16]byte{}, []rawSection{sec})
			s := open(t, b).Sections[0]
			rc, err := s.OpenVerified()
			require.NoError(t, err)
			got, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.Equal(t, text, got)
			require.NoError(t, rc.Close())

			// A wrong checksum: not one byte comes out.
			bad := sec
			bad.Sum ^= 1
			s2 := open(t, buildContainer('P', [16]byte{}, []rawSection{bad})).Sections[0]
			rc, err = s2.OpenVerified()
			if err == nil {
				var k int
				k, err = rc.Read(make([]byte, 100))
				require.Zero(t, k)
			}
			require.ErrorIs(t, err, ErrChecksum)

			// Stored bytes changed after the section was verified, in a
			// chunk the reader has not read yet.
			if len(sec.Stored) <= storedChunk {
				t.Fatalf("%d stored bytes: one chunk", len(sec.Stored))
			}
			rc, err = s.OpenVerified()
			require.NoError(t, err)
			b[int(s.Pointer)+len(sec.Stored)-100] ^= 0x10 // s reads b in place
			got, err = io.ReadAll(rc)
			require.ErrorIs(t, err, ErrChecksum, "read %d bytes", len(got))
			require.Equal(t, text[:len(got)], got)
			// And from then on it is read whole again, and fails.
			rc, err = s.OpenVerified()
			if err == nil {
				_, err = io.ReadAll(rc)
			}
			require.True(t, errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum), "%v", err)
		})
	}
}
