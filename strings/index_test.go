package strings

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// Lookups at every offset of one long string read each byte a bounded
// number of times in all, not once per lookup: hostile name pointers into
// one long string cost linear time.
func TestGetOverlappingIsLinear(t *testing.T) {
	const n = 1 << 20
	tab := NewTableString(strings.Repeat("é", n/2) + "\x00")
	for off := uint32(0); off < n; off++ {
		s, err := tab.Get(off)
		switch {
		case off%2 == 1:
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Get(%d) inside a rune: %v, want ErrInvalidUTF8", off, err)
			}
		case err != nil || len(s) != n-int(off):
			t.Fatalf("Get(%d) = %d bytes, %v; want %d bytes", off, len(s), err, n-int(off))
		}
	}
	if got := tab.scanned.Load(); got > 4*n {
		t.Errorf("%d lookups scanned %d bytes, want at most %d", n, got, 4*n)
	}
}

// The index gives the same answers as a plain scan, errors and their
// offsets included.
func TestGetIndexedMatchesScan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "\x00", "é", "€", "😀", "\xff", "\xc3", "\x80", "\xed\xa0\x80", "\xe2\x82"}
	for round := range 200 {
		var sb strings.Builder
		for range rnd.IntN(200) {
			sb.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		s := sb.String()
		plain := NewTableString(s)
		indexed := NewTableString(s)
		indexed.buildIndex()
		for off := uint32(0); off <= uint32(len(s))+1; off++ {
			want, _, wantErr := plain.scanOrRange(off)
			got, gotErr := indexed.Get(off)
			if got != want || errString(gotErr) != errString(wantErr) {
				t.Fatalf("round %d, %q, Get(%d): indexed %q, %v; scan %q, %v", round, s, off, got, gotErr, want, wantErr)
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// scanOrRange is Get without the index, range check included.
func (t *Table) scanOrRange(off uint32) (string, int, error) {
	if uint64(off) >= uint64(len(t.s)) {
		return "", 0, &Error{Offset: int64(off), Err: ErrOutOfRange}
	}
	return t.scan(off)
}
