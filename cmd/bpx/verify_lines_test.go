package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx/types/pack"
)

// TestVerifyOneLinePerProblem: issue 43 item 3. One changed byte in the
// object table of a package with a path index is one problem, printed
// once (it was printed by the table's check and again by the index's;
// with many data sections, once for each), and a damaged data section
// names the files it holds.
func TestVerifyOneLinePerProblem(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("levels", strings.Repeat("x", i%7), "file"+strings.Repeat("y", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26))+".cfg")] = strings.Repeat("level data ", 50+i)
	}
	writeFiles(t, filepath.Join(dir, "src"), files)
	pkg := filepath.Join(dir, "p.bpx")
	f, err := os.Create(pkg)
	if err != nil {
		t.Fatal(err)
	}
	w := pack.NewWriter(f, pack.WithPathIndex(true), pack.WithSectionSize(8<<10))
	if err := w.AddFS(os.DirFS(filepath.Join(dir, "src"))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p, err := pack.Open(pkg)
	if err != nil {
		t.Fatal(err)
	}
	ot := p.Reader.FindSection(pack.SectionObjectTable)
	var data int
	for _, s := range p.Reader.Sections {
		if s.Type == pack.SectionData && data == 0 {
			data = s.Index
		}
	}
	ds := p.Reader.Sections[data]
	p.Close()
	b, _ := os.ReadFile(pkg)
	for _, c := range []struct {
		what string
		at   uint64
		want string
	}{
		{"object table", ot.Pointer + 13, "checksum mismatch"},
		{"data section", ds.Pointer + uint64(ds.StoredSize())/2, "holds \"levels/"},
	} {
		bad := filepath.Join(dir, "bad.bpx")
		cp := append([]byte(nil), b...)
		cp[c.at] ^= 0x10
		if err := os.WriteFile(bad, cp, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBPX(t, nil, "verify", "-q", bad)
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		if r.Code != exitFail || len(lines) != 1 || !strings.Contains(lines[0], c.want) || !strings.HasSuffix(strings.TrimSpace(r.Stdout), "FAILED (1 problem)") {
			t.Errorf("%s: %+v", c.what, r)
		}
	}
}
