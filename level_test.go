package bpx_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

func TestLevelText(t *testing.T) {
	for _, l := range []bpx.Level{bpx.LevelDefault, bpx.LevelFast, bpx.LevelMax} {
		b, err := l.MarshalText()
		if err != nil || string(b) != l.String() {
			t.Errorf("%v.MarshalText() = %q, %v", l, b, err)
		}
		var back bpx.Level
		if err := back.UnmarshalText(b); err != nil || back != l {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", b, back, err, l)
		}
	}
	if bpx.Level(0) != bpx.LevelDefault {
		t.Error("the zero Level is not LevelDefault")
	}
	var l bpx.Level
	if err := l.UnmarshalText([]byte("ultra")); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("UnmarshalText(ultra) = %v, want ErrUnsupported", err)
	}
	if _, err := bpx.Level(9).MarshalText(); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("Level(9).MarshalText() = %v, want ErrUnsupported", err)
	}
}

// Every level writes sections that read back; on text, max is smallest
// and fast largest; the default level is the zero value's output.
func TestLevelSections(t *testing.T) {
	data := textData(600<<10, 3)
	for _, c := range []bpx.Compression{bpx.CompressZlib, bpx.CompressXZ} {
		size := map[bpx.Level]int{}
		for _, l := range []bpx.Level{bpx.LevelFast, bpx.LevelDefault, bpx.LevelMax} {
			var buf bytes.Buffer
			w := bpx.NewWriter(&buf)
			if err := w.WriteSection(1, bpx.SectionOptions{Compression: c, Level: l}, data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Sections[0].Data()
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%v %v: read back %d bytes, %v", c, l, len(got), err)
			}
			size[l] = int(r.Sections[0].CSize)
		}
		if !(size[bpx.LevelMax] < size[bpx.LevelDefault] && size[bpx.LevelDefault] < size[bpx.LevelFast]) {
			t.Errorf("%v: sizes fast %d, default %d, max %d: want max < default < fast", c, size[bpx.LevelFast], size[bpx.LevelDefault], size[bpx.LevelMax])
		}
		t.Logf("%v: fast %d, default %d, max %d bytes", c, size[bpx.LevelFast], size[bpx.LevelDefault], size[bpx.LevelMax])
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	err := w.WriteSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Level: bpx.LevelMax + 1}, data)
	if !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("WriteSection at an unknown level: %v, want ErrUnsupported", err)
	}
}
