package pack

import (
	"runtime"
	"testing"

	"github.com/gobpx/bpx/internal/testbpx"
)

// With SkipNames a package opens without decompressing its strings section
// (64 MiB of zeros, 8 MiB with -short, in a few kilobytes): the objects,
// sizes and dead bytes are there, the names are not.
func TestSkipNames(t *testing.T) {
	size := int64(64 << 20)
	if testing.Short() {
		size = 8 << 20 // as telling, and cheaper to build (-race)
	}
	file := testbpx.PackageNamesBomb(t, size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := openBytes(t, file, IgnoreTypeExt(), SkipNames())
	runtime.ReadMemStats(&after)
	defer p.Close()
	objs := p.Objects()
	if len(objs) != 1 || objs[0].Name != "" || objs[0].NameErr != nil || objs[0].Size != 5 {
		t.Errorf("objects %+v", objs)
	}
	if dead, err := p.DeadBytes(); dead != 0 || err != nil {
		t.Errorf("DeadBytes = %d, %v", dead, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("opening with SkipNames allocated %d bytes beside a %d-byte strings section", got, size)
	}
	// Without it the name is read, at the cost of the section.
	q := openBytes(t, testbpx.PackageNamesBomb(t, 2), IgnoreTypeExt())
	defer q.Close()
	if o := q.Objects()[0]; o.Name != "a" || o.NameErr != nil {
		t.Errorf("without SkipNames: %+v", o)
	}
}
