package explorer

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// claimUSize sets the uncompressed size that the headers of file b claim
// for each section i in usize (the data stays as it is) and fixes the
// header checksum, as a hostile file would.
func claimUSize(t testing.TB, b []byte, usize map[int]uint32) []byte {
	t.Helper()
	b = bytes.Clone(b)
	n := int(binary.LittleEndian.Uint32(b[16:]))
	table := b[bpx.MainHeaderSize : bpx.MainHeaderSize+n*bpx.SectionHeaderSize]
	for i, u := range usize {
		binary.LittleEndian.PutUint32(table[i*bpx.SectionHeaderSize+12:], u)
	}
	sum := bpx.WeakChecksum(0, b[0:4])
	sum = bpx.WeakChecksum(sum, b[8:bpx.MainHeaderSize])
	sum = bpx.WeakChecksum(sum, table)
	binary.LittleEndian.PutUint32(b[4:], sum)
	if _, err := bpx.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTableLimit: a table preview decodes the table section and the
// strings section; together (with its page) they must stay within
// MaxPreviewBytes (the package doc's bound of one preview), not each of
// them.
func TestTableLimit(t *testing.T) {
	strs := &bpxstrings.Builder{}
	tb, err := table.NewBuilder(strs, "units", []table.Column{{Name: "name", Type: table.Varchar, Len: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append("tank"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	if err := w.WriteSection(bpx.SectionTypeTable, xzOpts, tb.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(bpx.SectionTypeStrings, xzOpts, strs.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Each half of the limit and a bit: within it alone, above it together.
	half := uint32((MaxPreviewBytes-tablePageFactor*maxTablePage)/tableFactor/2 + 1)
	s := newServer(t, []File{file("t.bpx", claimUSize(t, buf.Bytes(), map[int]uint32{0: half, 1: half}))})
	wantError(t, s, "/api/table?file=0", 413, "limit")
	// Alone, each is read (and found short: 422).
	s = newServer(t, []File{file("t.bpx", claimUSize(t, buf.Bytes(), map[int]uint32{1: half}))})
	wantError(t, s, "/api/table?file=0", 422, "")
}
