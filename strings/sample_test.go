package strings_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
	bpxstrings "github.com/gobpx/bpx/strings"
)

func stringsSection(t *testing.T, rel string) *bpxstrings.Table {
	t.Helper()
	r, err := bpx.OpenReader(filepath.Join(samples.Dir(t, "bpx"), rel))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := r.FindSection(bpx.SectionTypeStrings)
	if s == nil {
		t.Fatalf("%s: no strings section", rel)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return bpxstrings.NewTable(data)
}

// The object names the samples' MANIFEST lists, at their pointers.
func TestSampleStrings(t *testing.T) {
	tests := []struct {
		file string
		off  uint32
		want string
	}{
		{"real/BPX-rs_tests_test.bpx", 16, "test_new"},
		{"real/BPX-rs_tests_test.bpx", 29, "bpx"},
		{"real/bpx-tools_dump_tests_test.bpx", 0, "LICENSE_LF.txt"},
		{"reference-generated/pkg_meta.bpx", 0, "a.txt"},
		{"reference-generated/sdk31_pkg_small.bpx", 10, "second.txt"},
		{"reference-generated/shader_pack.bpx", 12, "Material"},
	}
	for _, tt := range tests {
		got, err := stringsSection(t, tt.file).Get(tt.off)
		if err != nil || got != tt.want {
			t.Errorf("%s: Get(%d) = %q, %v; want %q", tt.file, tt.off, got, err, tt.want)
		}
	}
}

func TestSampleNamePointerBeyondStrings(t *testing.T) {
	// synthetic/pkg_name_ptr_beyond_strings.bpx names an object at 500 in
	// a 12-byte strings section; the reference says "EOS reached".
	tab := stringsSection(t, "synthetic/pkg_name_ptr_beyond_strings.bpx")
	_, err := tab.Get(500)
	if !errors.Is(err, bpxstrings.ErrOutOfRange) || !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("Get(500) error = %v, want ErrOutOfRange", err)
	}
	if got, err := tab.Get(6); err != nil || got != "b.txt" {
		t.Errorf("Get(6) = %q, %v; want b.txt", got, err)
	}
}
