//go:build !js && !wasip1

// The browser test starts Chromium, which WebAssembly cannot.

package explorer

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gobpx/bpx/table"
)

// TestBrowserPagedByBytes: the page follows pages that end early (a
// listing of long names, the section table) to the end, and shows a
// name beyond MaxPathLength cut, with its length, among the invalid ones.
func TestBrowserPagedByBytes(t *testing.T) {
	needChromium(t)
	const nobj, nsec = 600, 1200
	var objs []string
	for i := range nobj {
		objs = append(objs, longName("d/", i, 4000))
	}
	long := longName("z", 0, 10_000)
	objs = append(objs, long)
	url := serveForBrowser(t, []File{file("sections.bpx", manySections(t, nsec)), file("p.bpx", namedPackage(t, objs))})
	ctx, con := startBrowser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url+"/#dir=p.bpx/d&file=0")); err != nil {
		t.Fatal(err)
	}
	// The section table: a first page, then "more sections" to the end.
	waitJS(t, ctx, "the first page of sections", `document.querySelectorAll('table.sections tbody tr').length === 500`, nil)
	var head string
	waitJS(t, ctx, "the section count", `document.querySelector('.container h3:nth-of-type(2)').textContent`, &head)
	if !strings.Contains(head, "Sections (1,200) 500 shown") {
		t.Errorf("heading %q", head)
	}
	// A click while a page loads does nothing (the button is busy), so
	// click until every row is shown, as a user would on a slow machine.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		done, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const b = document.querySelector('button.more-sections');
			if (b.hidden) return true; b.click(); return false; })()`))
		if done {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var rows []string
	waitJS(t, ctx, "every section", `(() => { const r = [...document.querySelectorAll('table.sections tbody tr')];
		return r.length === 1200 && document.querySelector('button.more-sections').hidden && r.map((x) => x.firstChild.textContent); })()`, &rows)
	for i, r := range rows {
		if r != itoa(i) {
			t.Fatalf("row %d is section %s", i, r)
		}
	}
	// The listing: pages of about a megabyte (some 120 names), followed
	// to the end by scrolling.
	var n int
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scroller'); s.scrollTop = s.scrollHeight; })()`))
		waitJS(t, ctx, "the listing", `document.querySelectorAll('#list li').length`, &n)
		if n >= nobj {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var paths []string
	waitJS(t, ctx, "the whole listing", `(() => { const l = [...document.querySelectorAll('#list li')];
		return l.length === 600 && document.getElementById('more').hidden && l.map((x) => x.dataset.path); })()`, &paths)
	for i, p := range paths {
		if p != "p.bpx/"+objs[i] {
			t.Fatalf("entry %d is %.40q", i, p)
		}
	}
	// The name beyond MaxPathLength: cut, with its length.
	var inv string
	waitJS(t, ctx, "the invalid names", `(document.querySelector('details.invalid li') || {}).textContent || null`, &inv)
	if !strings.Contains(inv, `"`+long[:100]) || !strings.Contains(inv, "…") || !strings.Contains(inv, "(a name of 10,000 bytes)") || len(inv) > 1000 {
		t.Errorf("invalid name shown as %.400q", inv)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserTablePagedByBytes: a page of table rows that ends early (at
// maxTablePage, here after 85 of the 100 rows asked) is followed by the
// next rows, none skipped.
func TestBrowserTablePagedByBytes(t *testing.T) {
	needChromium(t)
	const n = 16 << 10 // bools a row: 96 KiB of JSON
	wide := tableBytes(t, []table.Column{{Name: "flags", Type: table.Bool, Len: n}}, 150, make([]bool, n))
	url := serveForBrowser(t, []File{file("wide.bpx", wide)})
	ctx, con := startBrowser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url+"/#file=0")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the sections", `document.querySelectorAll('table.sections tbody tr').length === 2`, nil)
	chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('table.sections button')].find((b) => b.textContent === 'table').click()`))
	const page = `(() => {
		const r = document.querySelectorAll('.section-view tbody tr');
		return r.length > 0 && [r.length, r[0].firstChild.textContent];
	})()`
	var first, second []any
	json.Unmarshal(waitJS(t, ctx, "the first rows", page, nil), &first)
	if len(first) != 2 || first[1] != "0" {
		t.Fatalf("first page %v", first)
	}
	shown := int(first[0].(float64))
	if shown >= 100 {
		t.Fatalf("the first page holds %d rows: the test wants one that ends early", shown)
	}
	chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('.section-view .pager button:last-child').click()`))
	json.Unmarshal(waitJS(t, ctx, "the next rows", strings.Replace(page, "r.length > 0 &&", "r.length > 0 && r[0].firstChild.textContent !== '0' &&", 1), nil), &second)
	if len(second) != 2 || second[1] != itoa(shown) {
		t.Errorf("after a page of %d rows, the next starts at row %v, want %d", shown, second, shown)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
