package pack

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// TestWriterOptionOutOfRange: a writer option outside its range makes the
// Writer fail with the option's error, and nothing is written.
func TestWriterOptionOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  WriterOption
		is   error
	}{
		{"WithSectionSize", WithSectionSize(0), nil},
		{"WithSectionSize", WithSectionSize(1 << 32), nil},
		{"WithConcurrency", WithConcurrency(0), nil},
		{"WithMemoryLimit", WithMemoryLimit(-1), nil},
		{"WithCompression", WithCompression(bpx.Compression(9)), bpx.ErrUnsupported},
		{"WithChecksum", WithChecksum(bpx.Checksum(9)), bpx.ErrUnsupported},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, tc.opt)
		_, cerr := w.Create("a")
		err := w.Close()
		for _, e := range []error{cerr, err} {
			switch {
			case e == nil:
				t.Errorf("%s: no error", tc.name)
			case tc.is != nil && !errors.Is(e, tc.is):
				t.Errorf("%s: %v, want %v", tc.name, e, tc.is)
			case !strings.Contains(e.Error(), tc.name):
				t.Errorf("%s: %v does not name the option", tc.name, e)
			}
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written", tc.name, out.Len())
		}
	}
}

// TestWriterOptions: each writer option shows in the package written.
func TestWriterOptions(t *testing.T) {
	m := fstest.MapFS{"a": {Data: bytes.Repeat([]byte("abcdefgh"), 2000)}}
	p := openBytes(t, pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithChecksum(bpx.ChecksumNone), WithSectionSize(4096)))
	data := p.Reader.SectionsOfType(SectionData)
	if len(data) != 4 {
		t.Fatalf("%d data sections, want 4 of 4096 bytes", len(data))
	}
	for _, s := range data {
		if s.Flags&bpx.FlagZlib == 0 || s.Flags&(bpx.FlagCRC32|bpx.FlagWeak) != 0 {
			t.Errorf("data section flags %#x, want zlib without checksum", s.Flags)
		}
	}
	p = openBytes(t, pkgBytes(t, m))
	for _, s := range p.Reader.SectionsOfType(SectionData) {
		if s.Flags&bpx.FlagXZ == 0 || s.Flags&bpx.FlagCRC32 == 0 {
			t.Errorf("default data section flags %#x, want xz with CRC32", s.Flags)
		}
	}
}

// TestReaderOptionOutOfRange: Open and NewReader refuse an option outside
// its range.
func TestReaderOptionOutOfRange(t *testing.T) {
	b := pkgBytes(t, fstest.MapFS{"a": {Data: []byte("x")}})
	for _, opt := range []Option{WithCacheSize(-1), WithMaxObjects(-1)} {
		if _, err := NewReader(bytes.NewReader(b), int64(len(b)), opt); err == nil {
			t.Error("NewReader accepted an option out of range")
		}
	}
}

// TestUnpackOptionOutOfRange: Unpack refuses an option outside its range
// before it writes anything.
func TestUnpackOptionOutOfRange(t *testing.T) {
	p := openBytes(t, pkgBytes(t, fstest.MapFS{"a": {Data: []byte("x")}}))
	dir := t.TempDir() + "/out"
	if err := p.Unpack(dir, WithUnpackConcurrency(0)); err == nil || !strings.Contains(err.Error(), "WithUnpackConcurrency") {
		t.Errorf("Unpack = %v, want the option's error", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Unpack made %s: %v", dir, err)
	}
}
