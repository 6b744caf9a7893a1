package bpx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// DecodedSize is USize where readers enforce it, and unknown where they do
// not: version-0 compressed sections and IgnoreUSize.
func TestDecodedSize(t *testing.T) {
	xzb := xzBytes(t, payload)
	secs := []rawSection{rawSec(1, payload, 0), {2, FlagXZ, xzb, uint32(len(payload)), 0}}
	b := buildContainer('Z', [16]byte{}, secs)
	check := func(r *Reader, i int, known bool) {
		t.Helper()
		n, ok := r.Sections[i].DecodedSize()
		require.Equal(t, known, ok, "section %d", i)
		if !ok {
			require.Zero(t, n)
			return
		}
		rc, err := r.Sections[i].Open()
		require.NoError(t, err)
		got, err := io.ReadAll(rc)
		require.NoError(t, err)
		require.EqualValues(t, len(got), n, "section %d", i)
	}
	r := open(t, b)
	check(r, 0, true)
	check(r, 1, true)
	r = open(t, b, IgnoreUSize())
	check(r, 0, true) // a raw section's USize is what it reads
	check(r, 1, false)

	v0 := buildVersion0('P', [8]byte{}, []v0Section{{1, 0, payload}, {2, v0FlagZlib, zlibBytes(t, payload)}})
	r = open(t, v0)
	check(r, 0, true)
	check(r, 1, false)
}
