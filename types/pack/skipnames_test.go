package pack

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// namesBomb is a revision 2 package of one 5-byte object named "a" whose
// xz strings section decodes to size bytes, nearly all zeros.
func namesBomb(t *testing.T, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(bpx.TypePackage)
	if err := w.WriteSection(SectionData, bpx.SectionOptions{}, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(SectionObjectTable, bpx.SectionOptions{}, testbpx.LE(uint64(5), uint32(0), uint32(0), uint32(0))); err != nil {
		t.Fatal(err)
	}
	sw, err := w.CreateSection(SectionStrings, bpx.SectionOptions{Compression: bpx.CompressXZ})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(sw, io.MultiReader(bytes.NewReader([]byte("a\x00")), zeroReader{}), size); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// With SkipNames a package opens without decompressing its strings section
// (here 64 MiB of zeros in a few kilobytes): the objects, sizes and dead
// bytes are there, the names are not.
func TestSkipNames(t *testing.T) {
	const size = 64 << 20
	file := namesBomb(t, size)
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
	q := openBytes(t, namesBomb(t, 2), IgnoreTypeExt())
	defer q.Close()
	if o := q.Objects()[0]; o.Name != "a" || o.NameErr != nil {
		t.Errorf("without SkipNames: %+v", o)
	}
}
