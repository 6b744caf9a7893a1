package bpx

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/samples"
	"github.com/stretchr/testify/require"
)

func samplesDir(t *testing.T) string { return samples.Dir(t, "bpx") }

// sampleOutcome is what reading one sample must give: an error at open, or
// per-section errors (nil: the section reads and verifies).
type sampleOutcome struct {
	open     error
	sections map[int]error
	// data, when set, is what section 0 must hold.
	data string
	opts []Option
}

var helloPayload = strings.Repeat("hello world ", 10)

// sampleOutcomes records, per file, the reference's behaviour from the
// samples README, except where the reference hangs or silently accepts bad
// data (we return a clear error), zlib (we read it) and a standard CRC-32
// (accepted on purpose).
var sampleOutcomes = map[string]sampleOutcome{
	"synthetic/zlib_section.bpx":                   {data: helloPayload},
	"synthetic/std_crc32_section.bpx":              {data: helloPayload},
	"synthetic/xz_python_nocheck.bpx":              {data: helloPayload},
	"synthetic/xz_python_default_check.bpx":        {data: helloPayload},
	"synthetic/xz_usize_too_small.bpx":             {sections: map[int]error{0: ErrFormat}},
	"synthetic/xz_usize_too_large.bpx":             {sections: map[int]error{0: ErrFormat}},
	"synthetic/xz_csize_with_trailing_garbage.bpx": {sections: map[int]error{0: ErrFormat}},
	"synthetic/xz_truncated_stream.bpx":            {sections: map[int]error{0: ErrFormat}},
	"synthetic/both_check_flags.bpx":               {data: helloPayload},
	"synthetic/csize_ne_usize_uncompressed.bpx":    {data: helloPayload[:110]},
	"synthetic/bad_header_checksum.bpx":            {open: ErrChecksum},
	"synthetic/bad_section_checksum.bpx":           {sections: map[int]error{0: ErrChecksum}},
	"synthetic/bad_signature.bpx":                  {open: ErrFormat},
	"synthetic/version0.bpx":                       {open: ErrChecksum}, // read as a version-0 draft: its CRC-32 fails
	"synthetic/version3.bpx":                       {open: ErrUnsupported},
	"synthetic/truncated_header.bpx":               {open: ErrFormat},
	"synthetic/truncated_sht.bpx":                  {open: ErrFormat},
	"synthetic/huge_section_num.bpx":               {open: ErrFormat},
	"synthetic/trailing_garbage.bpx":               {data: helloPayload},
	"synthetic/truncated_section_data.bpx":         {sections: map[int]error{0: ErrFormat}},
}

// The reference accepts a wrong USize on xz sections; IgnoreUSize does too.
var lenientOutcomes = map[string]sampleOutcome{
	"synthetic/xz_usize_too_small.bpx": {data: helloPayload, opts: []Option{IgnoreUSize()}},
	"synthetic/xz_usize_too_large.bpx": {data: helloPayload, opts: []Option{IgnoreUSize()}},
}

func TestSamples(t *testing.T) {
	dir := samplesDir(t)
	var files []string
	for _, sub := range []string{"real", "reference-generated", "synthetic"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.bpx"))
		for _, f := range m {
			rel, _ := filepath.Rel(dir, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	sort.Strings(files)
	require.NotEmpty(t, files)
	for _, name := range files {
		t.Run(name, func(t *testing.T) { checkSample(t, dir, name, sampleOutcomes[name]) })
		if o, ok := lenientOutcomes[name]; ok {
			t.Run(name+"/lenient", func(t *testing.T) { checkSample(t, dir, name, o) })
		}
	}
}

func checkSample(t *testing.T, dir, name string, want sampleOutcome) {
	r, err := OpenReader(filepath.Join(dir, name), want.opts...)
	if want.open != nil {
		require.ErrorIs(t, err, want.open)
		require.NotContains(t, err.Error(), "\n")
		return
	}
	require.NoError(t, err)
	defer r.Close()
	for _, s := range r.Sections {
		data, err := s.Data()
		if wantErr := want.sections[s.Index]; wantErr != nil {
			require.ErrorIs(t, err, wantErr, "section %d", s.Index)
			continue
		}
		require.NoError(t, err, "section %d", s.Index)
		if s.usizeKnown && want.opts == nil {
			require.Len(t, data, int(s.USize))
		}
		if s.Index == 0 && want.data != "" {
			require.Equal(t, want.data, string(data))
		}
	}
}

// TestSampleKnownValues checks decoded facts that the samples README states.
func TestSampleKnownValues(t *testing.T) {
	dir := samplesDir(t)
	r, err := OpenReader(filepath.Join(dir, "reference-generated", "container_checks.bpx"))
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, uint8('Z'), r.Header.Type)
	require.Equal(t, [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, r.Header.TypeExt)
	require.Len(t, r.Sections, 5)
	fox := "The quick brown fox jumps over the lazy dog"
	for i, s := range r.Sections {
		require.Equal(t, uint8(i+1), s.Type)
		d, err := s.Data()
		require.NoError(t, err)
		if i < 4 {
			require.Equal(t, fox, string(d))
		} else {
			require.Empty(t, d)
		}
	}
	require.Equal(t, uint32(96), r.Sections[3].CSize)
	require.NotZero(t, r.Sections[3].Flags&FlagXZ)

	e, err := OpenReader(filepath.Join(dir, "reference-generated", "empty_container.bpx"))
	require.NoError(t, err)
	require.Equal(t, uint32(0x114), e.Header.Checksum)
	require.Empty(t, e.Sections)
	require.NoError(t, e.Close())

	// pkg_xz: a 200033-byte xz + CRC32 data section.
	p, err := OpenReader(filepath.Join(dir, "reference-generated", "pkg_xz.bpx"))
	require.NoError(t, err)
	defer p.Close()
	data := p.FindSection(1)
	require.NotNil(t, data)
	b, err := data.Data()
	require.NoError(t, err)
	require.Len(t, b, 200033)
	require.True(t, strings.HasSuffix(string(b), "tail object in same data section\n"))

}
