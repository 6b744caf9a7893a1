package pack_test

import (
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/types/pack"
)

// TestOverlayThroughIndex: an overlay of a mod over a base package with a
// path index finds the base's files through the index, without reading
// the base's tables.
func TestOverlayThroughIndex(t *testing.T) {
	baseFiles := fstest.MapFS{}
	for i := range 3000 {
		baseFiles[fmt.Sprintf("levels/%04d.map", i)] = &fstest.MapFile{Data: fmt.Append(nil, "level ", i)}
	}
	base := packOfTree(t, baseFiles, pack.WithPathIndex(true))
	mod := packOfTree(t, fstest.MapFS{"levels/0007.map": {Data: []byte("modded")}})
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
