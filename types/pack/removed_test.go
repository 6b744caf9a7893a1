package pack

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// writeRemoving writes a package with one file, the given metadata setup
// and removals, and opens it.
func writeRemoving(t *testing.T, setMeta func(*Writer) error, remove ...string) *Package {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, WithCompression(bpx.CompressNone))
	if setMeta != nil {
		if err := setMeta(w); err != nil {
			t.Fatal(err)
		}
	}
	if len(remove) > 0 {
		if err := w.Remove(remove...); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.Create("new.txt")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("x"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return openBytes(t, buf.Bytes())
}

func TestRemovedRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setMeta func(*Writer) error
		remove  []string
		want    []string
		meta    map[string]string // string properties expected besides the list
	}{
		{name: "none", want: nil},
		{name: "only removals", remove: []string{"a.txt", "dir/sub", "a.txt"}, want: []string{"a.txt", "dir/sub"}},
		{
			name:    "merged with SetMetadata",
			setMeta: func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set("name", sd.String("mod"))) },
			remove:  []string{"textures"},
			want:    []string{"textures"},
			meta:    map[string]string{"name": "mod"},
		},
		{
			name: "merged with SetMetadataValue",
			setMeta: func(w *Writer) error {
				return w.SetMetadataValue(struct {
					Name string `sd:"name"`
				}{"mod2"})
			},
			remove: []string{"x/y/z.png"},
			want:   []string{"x/y/z.png"},
			meta:   map[string]string{"name": "mod2"},
		},
		{
			name: "appended to a list set by SetMetadata",
			setMeta: func(w *Writer) error {
				return w.SetMetadata(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("old"), sd.String("b"))))
			},
			remove: []string{"b", "c"},
			want:   []string{"old", "b", "c"},
		},
		{
			name: "list set by SetMetadata alone",
			setMeta: func(w *Writer) error {
				return w.SetMetadata(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("only"))))
			},
			want: []string{"only"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeRemoving(t, tc.setMeta, tc.remove...)
			got, err := p.Removed()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("Removed() = %q, want %q", got, tc.want)
			}
			if tc.meta != nil {
				o, err := p.Metadata()
				if err != nil {
					t.Fatal(err)
				}
				for k, want := range tc.meta {
					v, _ := o.Get(k)
					if s, _ := v.AsString(); s != want {
						t.Errorf("metadata %s = %v, want %q", k, v, want)
					}
				}
			}
			if b, _ := p.ReadFile("new.txt"); string(b) != "x" {
				t.Errorf("new.txt = %q", b)
			}
		})
	}
}

func TestRemoveInvalid(t *testing.T) {
	for _, bad := range []string{".", "", "/abs", "a/../b", "a/", "./a", "a\x00b", "bad\xffutf8"} {
		w := NewWriter(&bytes.Buffer{})
		err := w.Remove("ok", bad)
		if !errors.Is(err, ErrInsecurePath) || !strings.Contains(err.Error(), "Remove") {
			t.Errorf("Remove(%q) = %v, want ErrInsecurePath", bad, err)
		}
		w.Close()
	}
}

// TestRemoveMany: a list longer than one BPXSD array holds is read back
// whole, in order.
func TestRemoveMany(t *testing.T) {
	for _, n := range []int{sd.MaxEntries, sd.MaxEntries + 1, 1000} {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("d/f%04d", i))
		}
		if err := w.Remove(names...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := openBytes(t, buf.Bytes()).Removed()
		if err != nil || !slices.Equal(got, names) {
			t.Errorf("%d removals: read %d, %v", n, len(got), err)
		}
	}
}

func TestRemoveAfterClose(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove("a"); err == nil {
		t.Error("Remove after Close succeeded")
	}
}

func TestRemoveMetadataConflict(t *testing.T) {
	// A __removed__ property of another type cannot take the removals.
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.SetMetadata(sd.NewObject().Set(RemovedKey, sd.Uint8(1))); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove("a"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), RemovedKey) {
		t.Errorf("Close = %v, want an error naming %s", err, RemovedKey)
	}
}

// TestRemovedMalformed: metadata written by another tool with a wrong
// type or an unsafe path is an error matching bpx.ErrFormat.
func TestRemovedMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		val  sd.Value
		want string
	}{
		{"not an array", sd.String("a"), "is a string"},
		{"not a string", sd.Array(sd.String("a"), sd.Uint32(7)), "[1] is a u32"},
		{"absolute", sd.Array(sd.String("/etc/passwd")), `"/etc/passwd"`},
		{"dotdot", sd.Array(sd.String("a/../../b")), `"a/../../b"`},
		{"root", sd.Array(sd.String(".")), `"."`},
		{"empty", sd.Array(sd.String("")), `""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeRemoving(t, func(w *Writer) error { return w.SetMetadata(sd.NewObject().Set(RemovedKey, tc.val)) })
			got, err := p.Removed()
			if !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), RemovedKey) {
				t.Errorf("Removed() = %q, %v; want ErrFormat naming %s and %s", got, err, RemovedKey, tc.want)
			}
		})
	}
}

// TestRemovedBadMetadata: undecodable metadata is an error from Removed,
// matching bpx.ErrFormat, as from Metadata.
func TestRemovedBadMetadata(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WithCompression(bpx.CompressNone))
	w.meta = []byte{3, 1, 2} // three entries, truncated
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes())
	if _, err := p.Removed(); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("Removed() = %v, want ErrFormat", err)
	}
}

// FuzzRemoved decodes arbitrary metadata as the removal list: no panic,
// errors match bpx.ErrFormat, every accepted name is a valid fs path, and
// Writer.Remove adds to an accepted list keeping it and every other
// property.
func FuzzRemoved(f *testing.F) {
	enc := func(o *sd.Object) []byte {
		b, err := sd.Encode(o, sd.WithDebugNames())
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(enc(sd.NewObject()))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("a"), sd.String("dir/b")))))
	f.Add(enc(sd.NewObject().Set("name", sd.String("mod")).Set(RemovedKey, sd.Array(sd.String("fuzz/added")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("../x")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.Null()))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Uint64(1))))
	// Packed Strings, hostile ones, and groups as earlier versions wrote.
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("//a//b/c"), sd.String("d")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("//")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("////")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("//a//")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("//a///b")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.String("//a//../b")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.Array(sd.String("g/a"), sd.String("//g/b//g/c")), sd.String("e")))))
	f.Add(enc(sd.NewObject().Set(RemovedKey, sd.Array(sd.Array(sd.Array())))))
	f.Add(enc(sd.NewObject().Set("k", sd.Array(sd.NewObject().Value())).Set(RemovedKey, sd.Array(sd.Array(sd.String("x"))))))
	f.Fuzz(func(t *testing.T, data []byte) {
		meta, err := sd.Decode(data)
		if err != nil {
			return
		}
		list, err := removedList(meta)
		if err != nil {
			if !errors.Is(err, bpx.ErrFormat) {
				t.Fatalf("error does not match ErrFormat: %v", err)
			}
			return
		}
		for _, n := range list {
			if !validRemoval(n) {
				t.Fatalf("accepted %q", n)
			}
		}
		w := &Writer{meta: data}
		if err := w.Remove("fuzz/added"); err != nil {
			t.Fatal(err)
		}
		err = w.mergeRemovals()
		want := list
		if !slices.Contains(list, "fuzz/added") {
			want = append(slices.Clip(list), "fuzz/added")
		}
		oldList, had := meta.Get(RemovedKey)
		if meta.Len() == sd.MaxEntries && !had {
			if err == nil {
				t.Fatal("merging beyond the limits succeeded")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		merged, err := sd.Decode(w.meta)
		if err != nil {
			t.Fatal(err)
		}
		got, err := removedList(merged)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("merged list %q, %v; want %q", got, err, want)
		}
		if merged.Len() != meta.Len()+btoi(!had) {
			t.Fatalf("merged metadata has %d properties, had %d", merged.Len(), meta.Len())
		}
		// The list written is one Array of Strings: it adds one
		// container, in place of those of the list it replaces.
		newList, _ := merged.Get(RemovedKey)
		if n := containers(newList); n != 1 {
			t.Fatalf("merged list holds %d containers", n)
		}
		if had && containers(merged.Value()) != containers(meta.Value())-containers(oldList)+1 {
			t.Fatalf("merged metadata holds %d containers, had %d with a list of %d", containers(merged.Value()), containers(meta.Value()), containers(oldList))
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// containers counts the Arrays and Objects in v, v included: what the
// reference's max_depth counter counts.
func containers(v sd.Value) int {
	switch v.Kind() {
	case sd.KindArray:
		n := 1
		for _, e := range v.Array() {
			n += containers(e)
		}
		return n
	case sd.KindObject:
		n := 1
		for _, e := range v.Object().All() {
			n += containers(e)
		}
		return n
	}
	return 0
}
