package pack

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// removalNames returns n distinct valid names of varied depth.
func removalNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("d%d/f%d.png", i%7, i)
	}
	return names
}

// writeRemovals writes a package removing names, with the metadata setup
// and writer options given, and returns its bytes.
func writeRemovals(t *testing.T, setMeta func(*Writer) error, names []string, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, append([]WriterOption{WithCompression(bpx.CompressNone)}, opts...)...)
	if setMeta != nil {
		if err := setMeta(w); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Remove(names...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRemovalsWithinReferenceBudget (issue 24, item 8): the reference SDK
// decodes package metadata with one container counter of 16 for the whole
// value, so a removal list stored as an Array of 14 or more Arrays (3,316
// names and up) made it fail with Sd(MaxDepthExceeded), and more than
// 65,025 names could not be written at all. The list is now one Array of
// at most 255 Strings directly under the root, whatever its length: the
// metadata decodes under the reference's rule (sd.WithContainerBudget),
// and Removed reads the names back in order.
func TestRemovalsWithinReferenceBudget(t *testing.T) {
	for _, n := range []int{1, sd.MaxEntries, sd.MaxEntries + 1, 3316, 70000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			names := removalNames(n)
			p := openBytes(t, writeRemovals(t, nil, names))
			data, err := p.metadataBytes()
			if err != nil {
				t.Fatal(err)
			}
			meta, err := sd.Decode(data, sd.WithContainerBudget(sd.ReferenceMaxDepth))
			if err != nil {
				t.Fatalf("metadata fails the reference's container budget: %v", err)
			}
			v, _ := meta.Get(RemovedKey)
			elems := v.Array()
			if v.Kind() != sd.KindArray || len(elems) > sd.MaxEntries {
				t.Fatalf("%s is a %v of %d values", RemovedKey, v.Kind(), len(elems))
			}
			for i, e := range elems {
				s, ok := e.AsString()
				if !ok {
					t.Fatalf("%s[%d] is a %v", RemovedKey, i, e.Kind())
				}
				// Up to 255 names, one a String as the reference and
				// older readers expect.
				if n <= sd.MaxEntries && s != names[i] {
					t.Fatalf("%s[%d] = %q, want %q", RemovedKey, i, s, names[i])
				}
			}
			got, err := p.Removed()
			if err != nil || !slices.Equal(got, names) {
				t.Fatalf("Removed() read %d names (%v), want the %d written", len(got), err, n)
			}
		})
	}
}

// TestRemovalsAddOneContainer: the removal list costs the metadata exactly
// one container, so user metadata using 13 more (the reference's 15 less
// the root and the list) stays readable by the reference with any number
// of removals, also with WithMetadataNames (whose __debug__ Array
// replaces, here, one of the user's).
func TestRemovalsAddOneContainer(t *testing.T) {
	for _, named := range []bool{false, true} {
		var opts []WriterOption
		user := 13
		if named {
			opts = append(opts, WithMetadataNames())
			user = 12
		}
		setMeta := func(w *Writer) error {
			o := sd.NewObject()
			for i := range user {
				o.Set(fmt.Sprintf("k%d", i), sd.Array())
			}
			return w.SetMetadata(o)
		}
		for _, n := range []int{10, 5000} {
			p := openBytes(t, writeRemovals(t, setMeta, removalNames(n), opts...))
			data, err := p.metadataBytes()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sd.Decode(data, sd.WithContainerBudget(sd.ReferenceMaxDepth)); err != nil {
				t.Errorf("names %v, %d removals: %v", named, n, err)
			}
			if got, err := p.Removed(); err != nil || len(got) != n {
				t.Errorf("names %v: Removed() read %d, %v; want %d", named, len(got), err, n)
			}
		}
	}
}

// TestRemovedOldGroups: lists written by earlier versions (an Array of
// Arrays of Strings past 255 names), mixed with single names and packed
// Strings, read back whole and in order; Remove adds to them.
func TestRemovedOldGroups(t *testing.T) {
	group := func(names ...string) sd.Value {
		var vs []sd.Value
		for _, n := range names {
			vs = append(vs, sd.String(n))
		}
		return sd.Array(vs...)
	}
	list := sd.Array(
		group("g/a", "g/b"),
		sd.String("single"),
		sd.String("//p/1//p/2//p/3"),
		group("g/c", "//q/1//q/2"),
		group(),
	)
	want := []string{"g/a", "g/b", "single", "p/1", "p/2", "p/3", "g/c", "q/1", "q/2"}
	setMeta := func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set(RemovedKey, list)) }
	p := writeRemoving(t, setMeta)
	if got, err := p.Removed(); err != nil || !slices.Equal(got, want) {
		t.Fatalf("Removed() = %q, %v; want %q", got, err, want)
	}
	// Remove rewrites the list flat, old names first.
	p = writeRemoving(t, setMeta, "new", "g/a")
	if got, err := p.Removed(); err != nil || !slices.Equal(got, append(want, "new")) {
		t.Fatalf("after Remove: %q, %v", got, err)
	}
	meta, err := p.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := meta.Get(RemovedKey)
	for i, e := range v.Array() {
		if s, ok := e.AsString(); !ok || strings.HasPrefix(s, "//") {
			t.Errorf("%s[%d] = %v, want a single name (10 names fit one per String)", RemovedKey, i, e)
		}
	}
}

// TestRemovedHostilePacked: a packed String that does not hold valid
// names is an error matching bpx.ErrFormat naming the element and the
// name at fault.
func TestRemovedHostilePacked(t *testing.T) {
	for _, tc := range []struct {
		packed string
		want   string
	}{
		{"//", `__removed__[1] name 1 = ""`},
		{"////", `__removed__[1] name 1 = ""`},
		{"//a//", `__removed__[1] name 2 = ""`},
		{"//a///b", `__removed__[1] name 2 = "/b"`},
		{"//a//../b", `__removed__[1] name 2 = "../b"`},
		{"//a//.", `__removed__[1] name 2 = "."`},
		{"//a/", `__removed__[1] name 1 = "a/"`},
		{"///a", `__removed__[1] name 1 = "/a"`},
	} {
		list := sd.Array(sd.String("ok"), sd.String(tc.packed))
		p := writeRemoving(t, func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set(RemovedKey, list)) })
		got, err := p.Removed()
		if !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: Removed() = %q, %v; want ErrFormat naming %s", tc.packed, got, err, tc.want)
		}
	}
	// The same inside an old group.
	list := sd.Array(sd.Array(sd.String("ok"), sd.String("//x//")))
	p := writeRemoving(t, func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set(RemovedKey, list)) })
	if _, err := p.Removed(); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), `__removed__[0][1] name 2 = ""`) {
		t.Errorf("packed in a group: %v", err)
	}
}

// TestRemovedMemory: reading a removal list allocates a small multiple of
// the metadata's size, also for the densest packed String ("//a" per name:
// three bytes, each name a 16-byte string header in the result).
func TestRemovedMemory(t *testing.T) {
	const n = 300000
	packed := "//" + strings.Repeat("a//", n-1) + "a"
	list := sd.Array(sd.String(packed))
	p := writeRemoving(t, func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set(RemovedKey, list)) })
	data, err := p.metadataBytes()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := p.Removed()
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != n {
		t.Fatalf("Removed() read %d, %v", len(got), err)
	}
	used := after.TotalAlloc - before.TotalAlloc
	if limit := 10 * uint64(len(data)); used > limit {
		t.Errorf("Removed() of %d metadata bytes allocated %d bytes, more than %d", len(data), used, limit)
	}
	t.Logf("%d metadata bytes, %d names: %d bytes allocated (%.1f per byte)", len(data), n, used, float64(used)/float64(len(data)))
}
