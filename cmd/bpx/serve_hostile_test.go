//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// maxServeRSS is the bound on the peak RSS of "bpx serve" under
// hostile packages and clients.
const maxServeRSS = 512 << 20

// hostilePackage writes a package of objs (and metadata, if not nil) to
// dir/name.
func hostilePackage(t *testing.T, dir, name string, objs map[string][]byte, meta *sd.Object, opts ...pack.WriterOption) string {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	if meta != nil {
		if err := w.SetMetadata(meta); err != nil {
			t.Fatal(err)
		}
	}
	for n, b := range objs {
		ow, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		ow.Write(b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// manySections is a BPX file of n empty sections.
func manySections(t *testing.T, n int) []byte {
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	for range n {
		if err := w.WriteSection(0x10, bpx.SectionOptions{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textureOf is a w×h RGBA texture, random pixels or zeros, its section
// written with o.
func textureOf(t *testing.T, w, h int, noise bool, o bpx.SectionOptions) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if noise {
		r := rand.New(rand.NewPCG(5, 6))
		for i := range img.Pix {
			img.Pix[i] = byte(r.Uint32())
		}
	}
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := texture.Encode(&buf, tex, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostileTarget is a path of the served tree that the clients ask every
// endpoint about.
type hostileTarget struct {
	file    int    // the package it is in, for /api/invalid
	dir     string // the package's directory, for listings
	path    string
	section int // for /api/verify and /api/section
}

// requests are every endpoint for tg.
func (tg hostileTarget) requests(r *rand.Rand) []string {
	p := url.QueryEscape(tg.path)
	q := string(rune('a' + r.IntN(26)))
	sec := strconv.Itoa(tg.section)
	return []string{
		"/api/list?dir=" + url.QueryEscape(tg.dir) + "&limit=1000",
		"/api/list?dir=" + url.QueryEscape(tg.dir) + "&deep=1&limit=1000&q=" + q,
		"/api/invalid?file=" + strconv.Itoa(tg.file) + "&limit=1000",
		"/api/container?path=" + p,
		"/api/sections?path=" + p + "&offset=1&limit=5000",
		"/api/verify?path=" + p + "&section=" + sec,
		"/api/section?path=" + p + "&section=" + sec + "&offset=0&length=1048576",
		"/api/preview?path=" + p,
		"/api/sd?path=" + p,
		"/api/sd?path=" + p + "&typed=1",
		"/api/texture.png?path=" + p + "&layer=0",
		"/api/mesh?path=" + p,
		"/api/blk?path=" + p + "&as=json",
		"/api/table?path=" + p + "&limit=5000",
		"/raw/" + tg.path,
	}
}

// TestServeHostile (issue 23): "bpx serve" of hostile packages stays
// under maxServeRSS of peak RSS while 32 clients ask every endpoint about
// each: a shader bomb, 1,000 objects of 100 KiB names, a BPX file of
// 1,000,000 sections, a worst-case BPXSD object of 4 MiB (and one of
// 1.4 MiB, within the preview limit) as objects and as metadata, and
// textures of 16 MiB (noise) and 64 MiB (zeros). It takes about a
// minute on two cores.
func TestServeHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses a 256 MiB shader and runs 32 clients for about a minute: skipped with -short")
	}
	dir := t.TempDir()
	names := map[string][]byte{}
	for i := range 1000 {
		names[fmt.Sprintf("n%04d", i)+strings.Repeat("a", 100<<10)] = []byte("x")
	}
	worst := testbpx.WorstBPXSD(4<<20, false)
	small := testbpx.WorstBPXSD(1400<<10, false)
	meta := func(b []byte) *sd.Object {
		o, err := sd.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	xz := bpx.SectionOptions{Compression: bpx.CompressXZ}
	files := []string{
		hostilePackage(t, dir, "bomb.bpx", map[string][]byte{"shader.bpx": testbpx.ShaderBomb(t, 4, 256<<20)}, nil),
		hostilePackage(t, dir, "names.bpx", names, nil, pack.WithCompression(bpx.CompressXZ)),
		hostilePackage(t, dir, "sections.bpx", map[string][]byte{"many.bpx": manySections(t, 1_000_000)}, nil, pack.WithCompression(bpx.CompressXZ)),
		hostilePackage(t, dir, "sd.bpx", map[string][]byte{"worst.sd": worst, "small.sd": small}, meta(worst)),
		hostilePackage(t, dir, "sd2.bpx", nil, meta(small)),
		hostilePackage(t, dir, "tex.bpx", map[string][]byte{
			"noise.bpx": textureOf(t, 2048, 2048, true, bpx.SectionOptions{}),
			"huge.bpx":  textureOf(t, 4096, 4096, false, xz),
		}, nil, pack.WithCompression(bpx.CompressNone)),
	}
	var longName string
	for n := range names {
		longName = n
		break
	}
	targets := []hostileTarget{
		{0, "bomb.bpx", "bomb.bpx", 0}, {0, "bomb.bpx", "bomb.bpx/shader.bpx", 2},
		{1, "names.bpx", "names.bpx/" + longName, 0},
		{2, "sections.bpx", "sections.bpx/many.bpx", 999_999},
		{3, "sd.bpx", "sd.bpx", 0}, {3, "sd.bpx", "sd.bpx/worst.sd", 0}, {3, "sd.bpx", "sd.bpx/small.sd", 0},
		{4, "sd2.bpx", "sd2.bpx", 0},
		{5, "tex.bpx", "tex.bpx/noise.bpx", 0}, {5, "tex.bpx", "tex.bpx/huge.bpx", 0},
	}

	cmd := exec.Command(bpxBinary(t), append([]string{"serve"}, files...)...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOMEMLIMIT=") && !strings.HasPrefix(e, "GOGC=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "serving ")
	if err != nil || !ok {
		t.Fatalf("serve printed %q (%v): %s", line, err, stderr.String())
	}
	base = strings.TrimSuffix(base, "/")
	idle := peakRSS(t, cmd.Process.Pid)

	cl := &http.Client{
		Timeout:   5 * time.Minute, // a bound on a hang
		Transport: &http.Transport{MaxIdleConnsPerHost: 32},
	}
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
	)
	var wg sync.WaitGroup
	for c := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 7))
			var urls []string
			for _, tg := range targets {
				urls = append(urls, tg.requests(r)...)
			}
			r.Shuffle(len(urls), func(i, j int) { urls[i], urls[j] = urls[j], urls[i] })
			for _, u := range urls {
				res, err := cl.Get(base + u)
				if err != nil {
					t.Errorf("GET %s: %v", u, err)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				mu.Unlock()
				if res.StatusCode >= 500 {
					t.Errorf("GET %s: status %d", u, res.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	rss := peakRSS(t, cmd.Process.Pid)
	t.Logf("statuses %v; peak RSS %d MiB (%d MiB before the clients)", statuses, rss>>20, idle>>20)
	if rss >= maxServeRSS {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, maxServeRSS>>20)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}

// peakRSS reads the peak resident set size (VmHWM) of process pid.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no peak RSS: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}
