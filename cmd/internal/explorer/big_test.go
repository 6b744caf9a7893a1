package explorer

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// bigCount is the number of objects of the big package.
const bigCount = 1_000_000

var (
	bigOnce  sync.Once
	bigBytes []byte
	bigErr   error
)

// bigName is the name of object i of the big package: all in the root,
// written in name order as packers write them.
func bigName(i int) string { return fmt.Sprintf("o%07d.txt", i) }

// bigPackage returns a package of bigCount one-byte objects in one
// directory, made once per test run (about 40 MB, in memory).
func bigPackage(tb testing.TB) []byte {
	tb.Helper()
	if testing.Short() {
		tb.Skip("the 1,000,000-object package: skipped with -short")
	}
	bigOnce.Do(func() {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressNone))
		// name[1:] is bigName(i): the digits of 10_000_000+i, whose
		// leading 1 becomes the 'o' (fmt would take most of the time).
		name := []byte("xo0000000.txt")
		for i := range bigCount {
			strconv.AppendInt(name[:1], int64(10_000_000+i), 10)
			name[1] = 'o'
			ow, err := w.CreateSized(string(name[1:]), 1)
			if err != nil {
				bigErr = err
				return
			}
			ow.Write(name[8:9]) // the last digit
		}
		bigErr = w.Close()
		bigBytes = buf.Bytes()
	})
	if bigErr != nil {
		tb.Fatal(bigErr)
	}
	return bigBytes
}

// TestHugeListing: the first page and a page deep into a directory of a
// million objects, with the total; filters; the limit's bound.
func TestHugeListing(t *testing.T) {
	s := newServer(t, []File{file("big.bpx", bigPackage(t))})
	var l listAnswer
	for range 2 { // built, then from the cache
		getJSON(t, s, "/api/list?limit=1000", 200, &l)
		if l.Total != bigCount || len(l.Entries) != 1000 || l.Entries[0].Name != bigName(0) || l.Entries[999].Path != bigName(999) ||
			l.Entries[5].Size != 1 || l.Entries[5].Kind != "text" {
			t.Fatalf("first page: total %d, %d entries, %+v", l.Total, len(l.Entries), l.Entries[:1])
		}
	}
	getJSON(t, s, "/api/list?offset=654321&limit=5000", 200, &l)
	if l.Total != bigCount || len(l.Entries) != 5000 || l.Entries[0].Name != bigName(654321) || l.Entries[4999].Name != bigName(659320) {
		t.Errorf("deep page: %+v", l.Entries[0])
	}
	getJSON(t, s, "/api/list?offset=999999", 200, &l)
	if len(l.Entries) != 1 || l.Entries[0].Name != bigName(999999) {
		t.Errorf("last page: %+v", l)
	}
	wantError(t, s, "/api/list?limit=5001", 400, "limit")
	getJSON(t, s, "/api/list?q=O099999", 200, &l)
	if l.Total != 10 || l.Entries[0].Name != bigName(999990) {
		t.Errorf("q: %+v", l)
	}
	getJSON(t, s, "/api/list?q=0999999&deep=1", 200, &l)
	if l.Total != 1 || l.Entries[0].Path != bigName(999999) {
		t.Errorf("deep q: %+v", l)
	}
	if got := get(t, s, "/raw/"+bigName(123456)).Body.String(); got != "6" {
		t.Errorf("object 123456 = %q", got)
	}
}
