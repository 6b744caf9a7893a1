package remote

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/types/pack"
)

// The goals of issue #15, measured against a loopback server that waits
// 50 ms before each answer, over a package of $(go env GOROOT)/src built
// with this module's writer (default options: xz, 1 MiB sections):
//
//	go test -run '^$' -bench . -benchtime 3x ./remote/
//
// reports requests and bytes per operation next to the goal's limits
// (limit-B), and for the unpack the time of both ways in the same run.

const benchLatency = 50 * time.Millisecond

var goroot struct {
	once sync.Once
	data []byte
	err  error
}

// gorootPackage builds the package once per run.
func gorootPackage(b *testing.B) []byte {
	src := gocorpus.SrcDir()
	if src == "" {
		b.Skip("GOROOT/src not available")
	}
	goroot.once.Do(func() {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf)
		if err := w.AddFS(os.DirFS(src)); err != nil {
			goroot.err = err
			return
		}
		goroot.err = w.Close()
		goroot.data = buf.Bytes()
	})
	if goroot.err != nil {
		b.Fatal(goroot.err)
	}
	return goroot.data
}

func benchServer(b *testing.B) (*testServer, []byte) {
	data := gorootPackage(b)
	s := newTestServer(b, data)
	s.with(func(ts *testServer) { ts.latency = benchLatency })
	return s, data
}

// tableBytes is the stored size of the object table and the strings.
func tableBytes(b *testing.B, data []byte) int64 {
	rd, err := bpx.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, s := range rd.Sections {
		if s.Type == 0x02 || s.Type == bpx.SectionTypeStrings {
			n += int64(s.StoredSize())
		}
	}
	return n
}

func openRemote(b *testing.B, s *testServer) (*File, *pack.Package) {
	f, err := Open(context.Background(), s.URL, WithClient(s.Client()))
	if err != nil {
		b.Fatal(err)
	}
	p, err := pack.NewReader(f, f.Size())
	if err != nil {
		b.Fatal(err)
	}
	return f, p
}

// BenchmarkOpenList opens the package and lists every file (goal: at
// most 2 requests and the object table + strings + 64 KiB).
func BenchmarkOpenList(b *testing.B) {
	s, data := benchServer(b)
	limit := tableBytes(b, data) + 64<<10
	var st Stats
	for b.Loop() {
		f, p := openRemote(b, s)
		n := 0
		err := fs.WalkDir(p, ".", func(string, fs.DirEntry, error) error { n++; return nil })
		if err != nil || n < 1000 {
			b.Fatal(n, err)
		}
		st = f.Stats()
		p.Close()
		f.Close()
	}
	b.ReportMetric(float64(st.Requests), "requests/op")
	b.ReportMetric(float64(st.Bytes), "B/op-sent")
	b.ReportMetric(float64(limit), "limit-B")
}

// BenchmarkReadFile reads one small object after opening (goal: at most
// 1 more request and its section's stored size + 64 KiB).
func BenchmarkReadFile(b *testing.B) {
	s, data := benchServer(b)
	rd, err := bpx.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	lp, err := pack.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	// A small object in the middle of the file.
	var obj pack.Object
	for _, o := range lp.Objects() {
		if o.Size > 1000 && o.Size < 4000 && int(o.Start) > len(rd.Sections)/2 && o.Offset > 0 {
			obj = o
			break
		}
	}
	limit := int64(rd.Sections[obj.Start].StoredSize()) + 64<<10
	var opened, st Stats
	for b.Loop() {
		b.StopTimer()
		f, p := openRemote(b, s)
		opened = f.Stats()
		b.StartTimer()
		got, err := fs.ReadFile(p, obj.Name)
		if err != nil || int64(len(got)) != int64(obj.Size) {
			b.Fatal(err)
		}
		st = f.Stats()
		p.Close()
		f.Close()
	}
	b.ReportMetric(float64(st.Requests-opened.Requests), "requests/op")
	b.ReportMetric(float64(st.Bytes-opened.Bytes), "B/op-sent")
	b.ReportMetric(float64(limit), "limit-B")
}

// BenchmarkUnpack unpacks the whole package from the URL, and, as the
// baseline, downloads it with one GET and unpacks it from memory (goal:
// remote at most 1.0x the baseline's time). The two alternate within each
// iteration, in alternating order, so that both see the same load; the metrics are each way's
// mean time and their ratio.
func BenchmarkUnpack(b *testing.B) {
	s, _ := benchServer(b)
	var st Stats
	var remoteTime, baseTime time.Duration
	n := 0
	viaRemote := func(dir string) {
		f, p := openRemote(b, s)
		if err := p.Unpack(dir); err != nil {
			b.Fatal(err)
		}
		st = f.Stats()
		p.Close()
		f.Close()
	}
	viaDownload := func(dir string) {
		resp, err := s.Client().Get(s.URL)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status, err)
		}
		p, err := pack.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Unpack(dir); err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
	timed := func(sum *time.Duration, unpack func(string), dir string) {
		t0 := time.Now()
		unpack(dir)
		*sum += time.Since(t0)
	}
	for b.Loop() {
		dir := b.TempDir()
		// Alternate which goes first, so that a drift of the load
		// weighs on both.
		if n%2 == 0 {
			timed(&remoteTime, viaRemote, filepath.Join(dir, "remote"))
			timed(&baseTime, viaDownload, filepath.Join(dir, "local"))
		} else {
			timed(&baseTime, viaDownload, filepath.Join(dir, "local"))
			timed(&remoteTime, viaRemote, filepath.Join(dir, "remote"))
		}
		n++
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Requests), "requests/op")
	b.ReportMetric(float64(st.Bytes), "B/op-sent")
	b.ReportMetric(remoteTime.Seconds()/float64(n), "remote-s/op")
	b.ReportMetric(baseTime.Seconds()/float64(n), "download+local-s/op")
	b.ReportMetric(remoteTime.Seconds()/baseTime.Seconds(), "ratio")
}
