package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
)

type sampleObject struct {
	name   string
	size   uint64
	start  uint32
	offset uint32
	prefix string // expected first bytes of the content
}

// sampleCases lists what every package sample holds (MANIFEST.md) and how
// reading it must end (README.md).
var sampleCases = []struct {
	file     string
	revision int
	typeExt  string // arch/platform/generator
	objects  []sampleObject
	openErr  error  // expected error from NewReader
	readErr  error  // expected error reading some object
	errText  string // expected in the error message
	meta     string // expected metadata "name" property
}{
	{file: "real/BPX-rs_tests_test.bpx", revision: 2, typeExt: "any/Any/BB", objects: []sampleObject{
		{"test_new", 940, 6, 0, ""}, {"bpx", 907, 9, 0, ""}}},
	{file: "real/bpx-tools_dump_tests_test.bpx", revision: 1, typeExt: "any/Any/BD", objects: []sampleObject{
		{"LICENSE_LF.txt", 1517, 1, 12, "Copyright (c) 20"}}},
	{file: "real/fpkg_BPXTools_test_available_test.bpx", revision: 1, typeExt: "any/Any/PK", objects: []sampleObject{
		{"LICENSE.txt", 1517, 1, 12, "Copyright (c) 20"}}},
	{file: "reference-generated/pkg_small.bpx", revision: 2, typeExt: "any/Any/PH", objects: []sampleObject{
		{"hello.txt", 12, 2, 0, "Hello, BPX!\n"}, {"dir/empty.bin", 0, 2, 12, ""}, {"dir/utf8-你好.txt", 13, 2, 12, "café 你好\n"}}},
	{file: "reference-generated/pkg_xz.bpx", revision: 2, typeExt: "x86_64/Linux/BD", objects: []sampleObject{
		{"big.txt", 200000, 2, 0, ""}, {"small.txt", 33, 2, 200000, "tail object in same data section\n"}}},
	{file: "reference-generated/pkg_meta.bpx", revision: 2, typeExt: "any/Any/PH", meta: "sample-package", objects: []sampleObject{
		{"a.txt", 1, 3, 0, "A"}}},
	{file: "reference-generated/pkg_meta_multi.bpx", revision: 2, typeExt: "any/Any/PH", meta: "multi", objects: []sampleObject{
		{"x.bin", 4, 3, 0, "\x00\x01\x02\xff"}}},
	{file: "reference-generated/pkg_two_data_sections.bpx", revision: 2, typeExt: "any/Any/PH", objects: []sampleObject{
		{"first.txt", 5, 2, 0, "first"}, {"second.txt", 6, 3, 0, "second"}}},
	{file: "reference-generated/pkg_empty.bpx", revision: 2, typeExt: "any/Any/PH"},
	{file: "reference-generated/sdk31_pkg_small.bpx", revision: 2, typeExt: "any/Any/PH", meta: "sdk31", objects: []sampleObject{
		{"hello.txt", 12, 3, 0, "Hello"}, {"second.txt", 14, 3, 12, ""}}},
	{file: "reference-generated/shader_pack.bpx", openErr: ErrNotPackage},
	{file: "reference-generated/empty_container.bpx", openErr: ErrNotPackage},
	{file: "synthetic/pkg_missing_start_section.bpx", revision: 2, readErr: ErrObjectRange, errText: "start section 9 does not exist"},
	{file: "synthetic/pkg_1based_start.bpx", revision: 2, readErr: ErrObjectRange, errText: "start section 3 does not exist"},
	{file: "synthetic/pkg_size_beyond_data.bpx", revision: 2, readErr: ErrObjectRange, errText: "short of the object's size 50"},
	{file: "synthetic/pkg_offset_beyond_section.bpx", revision: 2, readErr: ErrObjectRange, errText: "offset 100 is beyond the end of section 2"},
	{file: "synthetic/pkg_name_ptr_beyond_strings.bpx", revision: 2, errText: "offset"},
	{file: "synthetic/pkg_objtable_not_multiple_of_20.bpx", revision: 2},
	{file: "synthetic/pkg_bad_arch.bpx", openErr: bpx.ErrFormat, errText: "invalid architecture code 9"},
	{file: "synthetic/truncated_header.bpx", openErr: bpx.ErrFormat},
	{file: "synthetic/bad_signature.bpx", openErr: bpx.ErrFormat},
}

func TestSamples(t *testing.T) {
	dir := samples.Dir(t, "bpx")
	for _, tc := range sampleCases {
		t.Run(tc.file, func(t *testing.T) {
			p, err := Open(filepath.Join(dir, tc.file))
			if tc.openErr != nil {
				if !errors.Is(err, tc.openErr) || (tc.errText != "" && !strings.Contains(err.Error(), tc.errText)) {
					t.Fatalf("Open error = %v, want %v containing %q", err, tc.openErr, tc.errText)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer p.Close()
			if p.Revision != tc.revision {
				t.Errorf("Revision = %d, want %d", p.Revision, tc.revision)
			}
			if tc.typeExt != "" {
				te := p.TypeExt
				if got := te.Arch.String() + "/" + te.Platform.String() + "/" + te.Generator.String(); got != tc.typeExt {
					t.Errorf("TypeExt = %s, want %s", got, tc.typeExt)
				}
			}
			if tc.meta != "" {
				m, err := p.Metadata()
				if err != nil {
					t.Fatalf("Metadata: %v", err)
				}
				v, _ := m.Get("name")
				if s, ok := v.AsString(); !ok || s != tc.meta {
					t.Errorf("metadata name = %v, want %q", v, tc.meta)
				}
			}
			if tc.objects != nil {
				checkSampleObjects(t, p, tc.objects)
			}
			var readErr error
			for i := range p.Objects() {
				if _, err := p.ReadObject(i); err != nil && readErr == nil {
					readErr = err
				}
			}
			verr := p.Verify()
			switch {
			case tc.readErr != nil:
				if !errors.Is(readErr, tc.readErr) || !errors.Is(readErr, bpx.ErrFormat) || !strings.Contains(readErr.Error(), tc.errText) {
					t.Errorf("read error = %v, want %v containing %q", readErr, tc.readErr, tc.errText)
				}
				if !errors.Is(verr, tc.readErr) {
					t.Errorf("Verify = %v, want %v", verr, tc.readErr)
				}
				if err := p.Unpack(t.TempDir()); !errors.Is(err, tc.readErr) {
					t.Errorf("Unpack = %v, want %v", err, tc.readErr)
				}
			case tc.errText != "":
				if verr == nil || !strings.Contains(verr.Error(), tc.errText) {
					t.Errorf("Verify = %v, want an error containing %q", verr, tc.errText)
				}
			default:
				if readErr != nil {
					t.Errorf("reading objects: %v", readErr)
				}
				if verr != nil {
					t.Errorf("Verify: %v", verr)
				}
				var names []string
				for _, o := range tc.objects {
					names = append(names, o.name)
				}
				if err := fstest.TestFS(p, names...); tc.objects != nil && err != nil {
					t.Error(err)
				}
				out := t.TempDir()
				if err := p.Unpack(out); err != nil {
					t.Fatalf("Unpack: %v", err)
				}
				for _, o := range tc.objects {
					b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(o.name)))
					if err != nil || uint64(len(b)) != o.size || !bytes.HasPrefix(b, []byte(o.prefix)) {
						t.Errorf("unpacked %s: %d bytes, err %v", o.name, len(b), err)
					}
				}
			}
		})
	}
}

func checkSampleObjects(t *testing.T, p *Package, want []sampleObject) {
	t.Helper()
	objs := p.Objects()
	if len(objs) != len(want) {
		t.Fatalf("%d objects, want %d", len(objs), len(want))
	}
	for i, w := range want {
		o := objs[i]
		if o.Name != w.name || o.Size != w.size || o.Start != w.start || o.Offset != w.offset {
			t.Errorf("object %d = %q size %d start %d offset %d, want %+v", i, o.Name, o.Size, o.Start, o.Offset, w)
		}
		b, err := p.ReadObject(i)
		if err != nil {
			t.Errorf("ReadObject(%d): %v", i, err)
			continue
		}
		if uint64(len(b)) != w.size || !bytes.HasPrefix(b, []byte(w.prefix)) {
			t.Errorf("object %d content %q..., want prefix %q", i, b[:min(len(b), 20)], w.prefix)
		}
		if fsb, err := p.ReadFile(w.name); err != nil || !bytes.Equal(fsb, b) {
			t.Errorf("ReadFile(%q) = %d bytes, %v", w.name, len(fsb), err)
		}
	}
}

// TestSampleXZContent checks big.txt of pkg_xz.bpx against the generator
// the README describes.
func TestSampleXZContent(t *testing.T) {
	p, err := Open(filepath.Join(samples.Dir(t, "bpx"), "reference-generated/pkg_xz.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got, err := p.ReadFile("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta\n"}
	var want []byte
	x := uint32(12345)
	for len(want) < 200000 {
		x = x*1103515245 + 12345
		want = append(want, words[(x>>16)%8]...)
	}
	want = want[:200000]
	if !bytes.Equal(got, want) {
		t.Errorf("big.txt differs from the generator (first bytes %q)", got[:40])
	}
}
