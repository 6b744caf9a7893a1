package explorer

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// serveGone serves target for a request that is already gone and reports
// whether the handler returned (within a generous watchdog: the failure
// this catches is a handler blocked for good) and what it wrote.
func serveGone(t *testing.T, s *Server, target string) *httptest.ResponseRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", target, nil).WithContext(ctx)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		s.ServeHTTP(rec, req)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.budget.release(MaxPreviewBytes) // let the handler go, then fail
		<-done
		t.Fatalf("%s: a gone request stayed blocked on the preview budget", target)
	}
	return rec
}

// holdBudget takes the whole preview budget, as previews decoding would;
// the test releases it.
func holdBudget(t testing.TB, s *Server) {
	t.Helper()
	if err := s.budget.acquire(context.Background(), MaxPreviewBytes); err != nil {
		t.Fatal(err)
	}
}

// TestSectionReadsGoneRequest: /api/verify and /api/section decompress
// under the preview budget; a request that goes away neither waits for
// the budget nor decompresses (a section of a hostile file can decompress to
// 4 GiB, and the page cancels the requests of a pane it leaves).
func TestSectionReadsGoneRequest(t *testing.T) {
	s := newServer(t, []File{file("m.bpx", metaPackage(t))}) // zlib sections
	sec := ""
	for _, x := range s.files[0].rd.Sections {
		if x.Compressed() && x.USize > 16 {
			sec = "section=" + itoa(x.Index)
			break
		}
	}
	if sec == "" {
		t.Fatal("the fixture has no compressed section")
	}
	targets := []string{"/api/verify?file=0&" + sec, "/api/section?file=0&" + sec + "&offset=1&length=16"}
	// The whole budget held: the gone request must not wait for it.
	holdBudget(t, s)
	for _, u := range targets {
		if rec := serveGone(t, s, u); rec.Body.Len() != 0 {
			t.Errorf("%s: gone request answered %q", u, rec.Body)
		}
	}
	s.budget.release(MaxPreviewBytes)
	// The budget free: the gone request must not decompress either.
	for _, u := range targets {
		if rec := serveGone(t, s, u); rec.Body.Len() != 0 {
			t.Errorf("%s: gone request decompressed and answered %q", u, rec.Body)
		}
	}
	if n := s.budget.held(); n != 0 {
		t.Errorf("%d bytes of the budget still held", n)
	}
	for _, u := range targets {
		if rec := get(t, s, u); rec.Code != 200 {
			t.Errorf("%s: status %d: %s", u, rec.Code, rec.Body)
		}
	}
}

// TestContainerNestedPackage: /api/container opens a package inside the
// tree for its object count, which decodes its object table (not its
// names): under the preview budget, and only within MaxPreviewBytes.
func TestContainerNestedPackage(t *testing.T) {
	inner := packBytes(t, map[string]string{"a.txt": "a", "b/c.txt": "c"}, nil)
	outer := func(inner []byte) *Server {
		return newServer(t, []File{file("game.bpx", packBytes(t, map[string]string{"in.bpx": string(inner)}, nil))})
	}
	s := outer(inner)
	holdBudget(t, s)
	if rec := serveGone(t, s, "/api/container?path=in.bpx"); rec.Body.Len() != 0 {
		t.Errorf("gone request opened the package and answered %q", rec.Body)
	}
	s.budget.release(MaxPreviewBytes)
	var c containerAnswer
	getJSON(t, s, "/api/container?path=in.bpx", 200, &c)
	if c.Objects == nil || *c.Objects != 2 {
		t.Errorf("objects %v, want 2", c.Objects)
	}
	rd, err := bpx.NewReader(bytes.NewReader(inner), int64(len(inner)))
	if err != nil {
		t.Fatal(err)
	}
	// An object table that would decode beyond the limit: the header, no
	// objects.
	ot := rd.FindSection(pack.SectionObjectTable)
	s = outer(claimUSize(t, inner, map[int]uint32{ot.Index: MaxPreviewBytes/packageOpenFactor + 1}))
	c = containerAnswer{}
	getJSON(t, s, "/api/container?path=in.bpx", 200, &c)
	if c.Objects != nil || len(c.Sections) != len(rd.Sections) {
		t.Errorf("objects %v, %d sections", c.Objects, len(c.Sections))
	}
	// Names beyond the limit cost nothing: they are not read
	// (describe.OpenPackage skips them), and the objects are counted.
	str := rd.FindSection(pack.SectionStrings)
	s = outer(claimUSize(t, inner, map[int]uint32{str.Index: MaxPreviewBytes + 1}))
	c = containerAnswer{}
	getJSON(t, s, "/api/container?path=in.bpx", 200, &c)
	if c.Objects == nil || *c.Objects != 2 {
		t.Errorf("names beyond the limit: objects %v, want 2", c.Objects)
	}
}
