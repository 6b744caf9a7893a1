package explorer

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// maxAssetBytes bounds the page's assets: the page is part of the binary
// and loads at once on a slow machine.
const maxAssetBytes = 100 << 10

// fetchAsset serves one GET request for target and returns the response and body.
func fetchAsset(t *testing.T, h http.Handler, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", target, nil)
	req.Host = "127.0.0.1" // the server answers local hosts only
	h.ServeHTTP(rec, req)
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func TestAssetsServed(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, page := fetchAsset(t, s, "/")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Every script and style the page names is served from /static/ with
	// its type.
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 2 {
		t.Fatalf("the page loads %d resources, want its script and style:\n%s", len(refs), page)
	}
	wantType := map[string]string{".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
	for _, m := range refs {
		ref := m[1]
		if strings.HasPrefix(ref, "#") {
			continue // a place in the page
		}
		if !strings.HasPrefix(ref, "/static/") {
			t.Errorf("the page refers to %q, outside /static/", ref)
			continue
		}
		res, _ := fetchAsset(t, s, ref)
		ext := ref[strings.LastIndex(ref, "."):]
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), wantType[ext]) {
			t.Errorf("GET %s: %d %q, want 200 %s", ref, res.StatusCode, res.Header.Get("Content-Type"), wantType[ext])
		}
	}
	for _, p := range []string{"/static/nothing.js", "/static/"} {
		if res, _ := fetchAsset(t, s, p); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
}

// TestAssetsSelfContained checks what the Content-Security-Policy would
// otherwise only break at run time: no inline script or style in the page,
// no outside resource, every module import resolves to an embedded file,
// and the assets stay small.
func TestAssetsSelfContained(t *testing.T) {
	static, err := fs.Sub(web, "web")
	if err != nil {
		t.Fatal(err)
	}
	page, err := fs.ReadFile(static, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`<script([^>]*)>([^<]*)`).FindAllStringSubmatch(string(page), -1) {
		if !strings.Contains(m[1], " src=") || strings.TrimSpace(m[2]) != "" {
			t.Errorf("index.html has an inline script the CSP forbids: %q", m[0])
		}
	}
	for _, m := range regexp.MustCompile(`<style|\sstyle=|\son[a-z]+=`).FindAllString(string(page), -1) {
		t.Errorf("index.html has inline style or code the CSP forbids: %q", m)
	}
	total := 0
	imports := regexp.MustCompile(`(?m)^\s*import\s[^'"]*['"]([^'"]+)['"]`)
	outside := regexp.MustCompile(`(?i)(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/`)
	err = fs.WalkDir(static, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(static, name)
		if err != nil {
			return err
		}
		total += len(data)
		if m := outside.Find(data); m != nil && !strings.HasSuffix(name, ".svg") {
			t.Errorf("%s refers to an outside resource: %q", name, m)
		}
		if strings.HasSuffix(name, ".js") {
			if strings.Contains(string(data), ".innerHTML") || strings.Contains(string(data), "outerHTML") ||
				strings.Contains(string(data), "insertAdjacentHTML") || strings.Contains(string(data), "document.write") {
				t.Errorf("%s builds HTML from strings; use DOM nodes and textContent", name)
			}
			for _, m := range imports.FindAllStringSubmatch(string(data), -1) {
				dep := m[1]
				if !strings.HasPrefix(dep, "./") {
					t.Errorf("%s imports %q: want a relative ./ path", name, dep)
					continue
				}
				if _, err := fs.Stat(static, "static/"+strings.TrimPrefix(dep, "./")); err != nil {
					t.Errorf("%s imports %q: %v", name, dep, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > maxAssetBytes {
		t.Errorf("the assets take %d bytes, want at most %d", total, maxAssetBytes)
	}
	t.Logf("assets: %d bytes", total)
}
