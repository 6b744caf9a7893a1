package pack

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// TestVerifyAllContext: issue 43 item 3. VerifyAll reports progress, stops
// when its context is done, names the files of a damaged section, and
// reports a damaged object table once, not once for every section that
// reads it.
func TestVerifyAllContext(t *testing.T) {
	m, _ := sourceTree(300)
	good := pkgBytes(t, m, WithSectionSize(16<<10))
	p := openBytes(t, good)
	var calls [][2]int64
	if err := p.VerifyAllContext(context.Background(), func(done, total int64) { calls = append(calls, [2]int64{done, total}) }); err != nil {
		t.Fatal(err)
	}
	if len(calls) != len(p.Reader.Sections) {
		t.Fatalf("%d progress calls for %d sections", len(calls), len(p.Reader.Sections))
	}
	for i, c := range calls {
		if c[0] > c[1] || i > 0 && c[0] < calls[i-1][0] || c[1] != calls[0][1] {
			t.Fatalf("progress %v", calls)
		}
	}
	if last := calls[len(calls)-1]; last[0] != last[1] {
		t.Fatalf("progress ends at %v", last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := openBytes(t, good).VerifyAllContext(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}

	// A damaged data section names its files.
	sec := busiestSection(p)
	s := p.Reader.Sections[sec]
	err := openBytes(t, flipAt(good, s.Pointer+uint64(s.StoredSize())/2)).VerifyAll()
	var se *SectionError
	if !errors.As(err, &se) || se.Section != sec || len(se.Files) < 2 {
		t.Fatalf("a damaged data section: %v", err)
	}
	var want []string
	for i := range p.Objects() {
		if o := &p.Objects()[i]; int(o.Start) == sec && o.Size > 0 {
			want = append(want, o.Name)
		}
	}
	for _, f := range want {
		if !slices.Contains(se.Files, f) {
			t.Errorf("the error names %v, not %s", se.Files, f)
		}
	}
	if !strings.Contains(err.Error(), "holds "+`"`+se.Files[0]+`"`) {
		t.Errorf("the message does not name the files: %v", err)
	}

	// A damaged object table under a path index: found by its own check
	// and by the index's, reported once.
	ix := pkgBytes(t, m, WithPathIndex(true), WithSectionSize(16<<10))
	ot := openBytes(t, ix).Reader.FindSection(SectionObjectTable)
	err = openBytes(t, flipAt(ix, ot.Pointer+13)).VerifyAll()
	if !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("a damaged object table: %v", err)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
		t.Errorf("a damaged object table: %d problems:\n%v", n, err)
	}
}

// TestSectionErrorBounded: naming the files of a damaged section walks a
// bounded number of segments (a hostile table can make every object span
// every section); past the bound the error says its list is incomplete.
func TestSectionErrorBounded(t *testing.T) {
	big := make([]byte, 64<<10)
	for i := range big {
		big[i] = byte(i * 7)
	}
	p := openBytes(t, pkgBytes(t, fstest.MapFS{"big.bin": {Data: big}, "a.txt": {Data: []byte("a")}},
		WithCompression(bpx.CompressNone), WithSectionSize(4<<10)))
	last := -1
	for _, s := range p.Reader.Sections {
		if s.Type == SectionData {
			last = s.Index
		}
	}
	cause := errors.New("damaged")
	var se *SectionError
	if err := p.sectionError(last, cause); !errors.As(err, &se) || se.Incomplete || !slices.Contains(se.Files, "big.bin") {
		t.Fatalf("%v", err)
	}
	defer func(n int) { sectionErrorSteps = n }(sectionErrorSteps)
	sectionErrorSteps = 0
	if err := p.sectionError(last, cause); !errors.As(err, &se) || !se.Incomplete || !errors.Is(err, cause) {
		t.Fatalf("with no steps: %v", err)
	}
}
