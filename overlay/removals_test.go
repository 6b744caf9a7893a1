package overlay_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// TestPackageManyRemovals: a package removing more names than one BPXSD
// Array holds (stored packed, several names a String) removes them all,
// and a hostile packed String makes New fail with ErrFormat naming the
// layer and the name.
func TestPackageManyRemovals(t *testing.T) {
	base := files("keep", "k")
	var removed []string
	for i := range 1000 {
		name := fmt.Sprintf("d%d/f%d", i%3, i)
		base[name] = base["keep"]
		removed = append(removed, name)
	}
	o, err := overlay.New(base, packOf(t, files("new", "n"), removed...))
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, o, files("keep", "k", "new", "n"))

	p := packWithMeta(t, sd.NewObject().Set(pack.RemovedKey, sd.Array(sd.String("//ok//../../etc"))))
	if _, err := overlay.New(base, p); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "layer 1") || !strings.Contains(err.Error(), `"../../etc"`) {
		t.Errorf("package with a hostile packed removal: %v", err)
	}
}
