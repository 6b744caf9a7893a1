package testbpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/cdc"
)

// sectionChunkDigests is pack.SectionChunkDigests (this package cannot
// import pack, whose tests import it).
const sectionChunkDigests = 0xF3

// ChunkedAs returns the package b (which has chunk digests) with its
// chunk digests list made again with the chunk sizes p: the true chunking
// of its stored bytes, as a writer choosing those sizes makes it (small
// sizes give a list of as many chunks as a crafted file may have, each
// describing the file's bytes, so that a pull and bpx verify pass it).
func ChunkedAs(t testing.TB, b []byte, p cdc.Params) []byte {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	s := rd.FindSection(sectionChunkDigests)
	if s == nil {
		t.Fatal("the package has no chunk digests")
	}
	start, end := int64(rd.Sections[0].Pointer), int64(rd.Sections[0].Pointer)
	for _, x := range rd.Sections[:s.Index] {
		end += int64(x.StoredSize())
	}
	le := binary.LittleEndian
	return ReplaceSection(t, b, sectionChunkDigests, bpx.ChecksumCRC32, func(old []byte) []byte {
		out := make([]byte, 24)
		copy(out, old[:4]) // the algorithm and reserved bytes
		le.PutUint32(out[4:], uint32(p.Min))
		le.PutUint32(out[8:], uint32(p.Avg))
		le.PutUint32(out[12:], uint32(p.Max))
		le.PutUint32(out[16:], uint32(s.Index))
		c := cdc.NewChunker(bytes.NewReader(b[start:end]), p, nil)
		k := 0
		for {
			ch, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(ch)
			out = le.AppendUint32(out, uint32(len(ch)))
			out = append(out, sum[:]...)
			k++
		}
		le.PutUint32(out[20:], uint32(k))
		return out
	})
}
