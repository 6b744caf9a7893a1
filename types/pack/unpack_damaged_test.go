package pack

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
)

// cutPoints returns where to cut a package of n bytes whose sections lie
// at the offsets of r: at each section's start and end, one byte either
// side, and at 31 evenly spread places.
func cutPoints(r *bpx.Reader, n int64) []int64 {
	var cuts []int64
	for _, s := range r.Sections {
		for _, at := range []int64{int64(s.Pointer), int64(s.Pointer) + int64(s.StoredSize())} {
			cuts = append(cuts, at-1, at, at+1)
		}
	}
	for i := range int64(31) {
		cuts = append(cuts, n*i/31)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	return slices.DeleteFunc(cuts, func(c int64) bool { return c < 0 || c >= n })
}

// TestUnpackTruncatedCreatesNothing: a package cut short anywhere fails to
// unpack with an error matching bpx.ErrFormat before anything is created:
// a missing target directory is not made, an existing one stays empty.
func TestUnpackTruncatedCreatesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []WriterOption
	}{
		{"raw", []WriterOption{WithCompression(bpx.CompressNone), WithSectionSize(16 << 10)}},
		{"xz", []WriterOption{WithSectionSize(16 << 10)}},
		{"zlib", []WriterOption{WithCompression(bpx.CompressZlib)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := pkgBytes(t, testTree(), tc.opts...)
			full := openBytes(t, whole)
			if len(full.Reader.Sections) < 3 {
				t.Fatalf("only %d sections", len(full.Reader.Sections))
			}
			for _, cut := range cutPoints(full.Reader, int64(len(whole))) {
				b := whole[:cut]
				p, err := NewReader(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					if !errors.Is(err, bpx.ErrFormat) {
						t.Errorf("cut at %d: open: %v, not ErrFormat", cut, err)
					}
					continue
				}
				missing := filepath.Join(t.TempDir(), "out")
				err = p.Unpack(missing)
				if !errors.Is(err, bpx.ErrFormat) || !errors.Is(err, ErrObjectRange) {
					t.Errorf("cut at %d: Unpack: %v, want ErrFormat and ErrObjectRange", cut, err)
				}
				if _, serr := os.Lstat(missing); !errors.Is(serr, fs.ErrNotExist) {
					t.Errorf("cut at %d: the target directory was created (%v)", cut, serr)
				}
				if err := UnpackFS(missing, p); !errors.Is(err, ErrObjectRange) {
					t.Errorf("cut at %d: UnpackFS: %v", cut, err)
				}
				if _, serr := os.Lstat(missing); !errors.Is(serr, fs.ErrNotExist) {
					t.Errorf("cut at %d: UnpackFS created the target directory (%v)", cut, serr)
				}
				if cerr := p.CheckObjects(); !errors.Is(cerr, ErrObjectRange) {
					t.Errorf("cut at %d: CheckObjects: %v", cut, cerr)
				}
				empty := t.TempDir()
				if err := p.Unpack(empty, WithPaths("dir", "textures/stone.raw", "hello.txt")); err != nil && !errors.Is(err, bpx.ErrFormat) {
					t.Errorf("cut at %d: Unpack of a selection: %v", cut, err)
				} else if err != nil {
					if ents, _ := os.ReadDir(empty); len(ents) != 0 {
						t.Errorf("cut at %d: left %d entries behind", cut, len(ents))
					}
				}
			}
			// The whole package passes the check and unpacks.
			if err := full.CheckObjects(); err != nil {
				t.Fatal(err)
			}
			if err := full.Unpack(t.TempDir()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUnpackChecksOnlySelection: objects outside WithPaths are not checked,
// so the intact part of a cut package still unpacks.
func TestUnpackChecksOnlySelection(t *testing.T) {
	whole := pkgBytes(t, testTree(), WithCompression(bpx.CompressNone), WithSectionSize(16<<10))
	full := openBytes(t, whole)
	// Cut inside the last section, which holds the end of the data.
	last := full.Reader.Sections[len(full.Reader.Sections)-1]
	b := whole[:last.Pointer+uint64(last.StoredSize())-1]
	p := openBytes(t, b)
	var intact, broken string
	for _, o := range p.Objects() {
		segs, _ := p.segments(&o)
		inLast := slices.ContainsFunc(segs, func(s segment) bool { return s.sec == last.Index })
		switch {
		case inLast && broken == "":
			broken = o.Name
		case !inLast && o.Size > 0 && intact == "":
			intact = o.Name
		}
	}
	if intact == "" || broken == "" {
		t.Fatalf("intact %q, broken %q", intact, broken)
	}
	if err := p.CheckObjects(intact); err != nil {
		t.Errorf("CheckObjects(%q): %v", intact, err)
	}
	if err := p.CheckObjects(broken); !errors.Is(err, ErrObjectRange) {
		t.Errorf("CheckObjects(%q): %v", broken, err)
	}
	out := t.TempDir()
	if err := p.Unpack(out, WithPaths(intact)); err != nil {
		t.Errorf("Unpack(%q): %v", intact, err)
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(intact))); err != nil {
		t.Error(err)
	}
}

// TestUnpackFSChecksWhatIsShown: through a stack of layers, UnpackFS checks
// the object each name resolves to before creating anything: a cut package
// under an intact one that shadows all its files unpacks, and the same cut
// package on top (or in a Sub of the stack) fails and creates nothing.
func TestUnpackFSChecksWhatIsShown(t *testing.T) {
	whole := pkgBytes(t, testTree(), WithCompression(bpx.CompressNone), WithSectionSize(16<<10))
	full := openBytes(t, whole)
	last := full.Reader.Sections[len(full.Reader.Sections)-1]
	cut := openBytes(t, whole[:last.Pointer+uint64(last.StoredSize())-1])
	if err := cut.CheckObjects(); !errors.Is(err, ErrObjectRange) {
		t.Fatalf("the cut package passes CheckObjects (%v)", err)
	}
	shadowed, err := overlay.New(cut, full)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := UnpackFS(out, shadowed); err != nil {
		t.Fatalf("cut package shadowed: %v", err)
	}
	want := t.TempDir()
	if err := full.Unpack(want); err != nil {
		t.Fatal(err)
	}
	compareTrees(t, want, out)

	exposed, err := overlay.New(full, cut)
	if err != nil {
		t.Fatal(err)
	}
	// The directory of an object in the section cut short.
	var broken string
	for _, o := range cut.Objects() {
		if cut.CheckObjects(o.Name) != nil {
			broken = o.Name
		}
	}
	sub, err := exposed.Sub(path.Dir(broken))
	if err != nil {
		t.Fatal(err)
	}
	for name, fsys := range map[string]fs.FS{"stack": exposed, "sub": sub} {
		missing := filepath.Join(t.TempDir(), "out")
		if err := UnpackFS(missing, fsys); !errors.Is(err, ErrObjectRange) || !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("%s: cut package on top: %v, want ErrObjectRange", name, err)
		}
		if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the target directory was created (%v)", name, err)
		}
	}
}
