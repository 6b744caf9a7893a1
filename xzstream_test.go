package bpx

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestXZStreamLargeSections: xz sections too large to decode whole go to
// internal/xzdec's streaming Reader; one of two streams, which it leaves
// to others, to the xi2-lineage decoder after it, which decodes the bytes
// already returned again. Both read identically through Data, Open and a
// Partial, and a damaged one fails with ErrFormat.
func TestXZStreamLargeSections(t *testing.T) {
	payload := partialPayload(maxFlatXZ + 1<<20)
	half := len(payload) / 2
	one := rawSection{Type: 1, Flags: FlagXZ | FlagCRC32, Stored: xzBytes(t, payload), USize: uint32(len(payload)), Sum: ReferenceCRC32(payload)}
	two := one
	two.Stored = append(xzBytes(t, payload[:half]), xzBytes(t, payload[half:])...)
	for name, sec := range map[string]rawSection{"one stream": one, "two streams": two} {
		t.Run(name, func(t *testing.T) {
			rd := open(t, buildContainer('P', [16]byte{}, []rawSection{sec}))
			s := rd.Sections[0]
			rc, err := s.Open()
			require.NoError(t, err)
			_, isStream := rc.(*sectionReader).dec.(*xzStreamDecoder)
			require.True(t, isStream, "decoded by %T", rc.(*sectionReader).dec)
			got := make([]byte, len(payload)-1)
			_, err = io.ReadFull(rc, got)
			require.NoError(t, err)
			require.True(t, bytes.Equal(payload[:len(got)], got))
			fell := rc.(*sectionReader).dec.(*xzStreamDecoder).slow != nil
			require.Equal(t, name == "two streams", fell, "left to the xi2-lineage decoder")
			rest, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.Equal(t, payload[len(got):], rest)
			rc.Close()
			got, err = s.Data()
			require.NoError(t, err)
			require.True(t, bytes.Equal(payload, got))
			p, err := s.OpenPartial(nil)
			require.NoError(t, err)
			for n := int64(1000); n < int64(len(payload)); n += 1 << 20 {
				out, err := p.DecodeTo(n)
				require.NoError(t, err)
				require.True(t, bytes.Equal(payload[:len(out)], out))
			}
			out, err := p.DecodeTo(int64(len(payload)))
			require.NoError(t, err)
			require.True(t, p.Verified() && bytes.Equal(payload, out))
			p.Close()

			bad := sec
			bad.Stored = bytes.Clone(sec.Stored)
			bad.Stored[len(bad.Stored)*3/4] ^= 0x40
			_, err = open(t, buildContainer('P', [16]byte{}, []rawSection{bad})).Sections[0].Data()
			require.ErrorIs(t, err, ErrFormat)
		})
	}
}
