package bpx

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingReaderAt counts ReadAt calls and bytes.
type countingReaderAt struct {
	r            *bytes.Reader
	calls, bytes atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.calls.Add(1)
	n, err := c.r.ReadAt(p, off)
	c.bytes.Add(int64(n))
	return n, err
}

func manySections(n int) []byte {
	secs := make([]rawSection, n)
	for i := range secs {
		secs[i] = rawSection{Type: uint8(i), Flags: FlagWeak, Stored: []byte{byte(i)}, USize: 1, Sum: uint32(byte(i))}
	}
	return buildContainer('Z', [16]byte{}, secs)
}

func TestOpenReadsOnlyHeaderAndTable(t *testing.T) {
	const n = 100000
	b := manySections(n)
	c := &countingReaderAt{r: bytes.NewReader(b)}
	r, err := NewReader(c, int64(len(b)))
	require.NoError(t, err)
	require.Len(t, r.Sections, n)
	require.LessOrEqual(t, c.calls.Load(), int64(2), "ReadAt calls at open")
	require.Equal(t, int64(MainHeaderSize+SectionHeaderSize*n), c.bytes.Load(), "bytes read at open")
	d, err := r.Sections[n-1].Data()
	require.NoError(t, err)
	require.Equal(t, []byte{byte((n - 1) % 256)}, d)
}

func BenchmarkOpen100kSections(b *testing.B) {
	data := manySections(100000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}
