package pack_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"testing"

	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/types/pack"
)

// TestOverlayThroughIndex: an overlay of a mod over a base package with a
// path index finds the base's files through the index, without reading
// the base's tables.
func TestOverlayThroughIndex(t *testing.T) {
	write := func(files map[string]string, opts ...pack.WriterOption) *pack.Package {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf, opts...)
		for name, data := range files {
			f, err := w.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprint(f, data)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	baseFiles := map[string]string{}
	for i := range 3000 {
		baseFiles[fmt.Sprintf("levels/%04d.map", i)] = fmt.Sprint("level ", i)
	}
	base := write(baseFiles, pack.WithPathIndex(true))
	mod := write(map[string]string{"levels/0007.map": "modded"})
	o, err := overlay.New(base, mod)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"levels/0007.map": "modded", "levels/2999.map": "level 2999"} {
		if b, err := fs.ReadFile(o, name); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if _, err := fs.Stat(o, "levels/3000.map"); err == nil {
		t.Error("a missing file was found")
	}
	if pack.TablesRead(base) {
		t.Error("the overlay read the base's tables")
	}
}
