package pack

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// RemovedKey is the metadata property that lists the names a mod package
// removes from the packages below it when they are layered (see package
// github.com/gobpx/bpx/overlay): an Array of Strings, directly under the
// root object, naming files or directories (with everything under them).
// Each name is a valid fs path other than ".". BPX has no field for this;
// it is a convention of this module.
//
// An Array holds at most sd.MaxEntries (255) values, and the reference SDK
// reads metadata holding at most 15 Arrays and Objects in all (root
// included; sd.ReferenceMaxDepth), so the list is always one Array: up to
// 255 names, one a String; a longer list packs several names into each
// String, which then starts with "//" and joins the names with "//"
// ("//a/b//c//d/e.png"). Valid names never hold "//", so this is
// unambiguous; readers that do not know it reject such a String as an
// invalid path rather than misapply it. The list thus adds exactly one
// container to the metadata, and its length is bounded only by the
// metadata section. Readers also accept the Array of Arrays of Strings
// (groups) that earlier versions wrote past 255 names, with single names
// and packed Strings mixed.
const RemovedKey = "__removed__"

// packedSep starts a String of the RemovedKey list that packs several
// names, and separates them.
const packedSep = "//"

// Removed returns the names listed under RemovedKey in the package's
// metadata, in their stored order, or nil when there are none. A list of
// another type, an element that is not a String (or a group of Strings),
// or a name that is not a valid fs path (or is ".") is an error matching
// bpx.ErrFormat naming the element and, in a packed String, the name's
// position; so is metadata that does not decode. Memory is linear in the
// metadata's size.
//
// With this method a *Package satisfies overlay.Remover.
func (p *Package) Removed() ([]string, error) {
	meta, err := p.Metadata()
	if meta == nil || err != nil {
		return nil, err
	}
	return removedList(meta)
}

// removedList validates and returns the RemovedKey list of meta.
func removedList(meta *sd.Object) ([]string, error) {
	v, ok := meta.Get(RemovedKey)
	if !ok {
		return nil, nil
	}
	if v.Kind() != sd.KindArray {
		return nil, fmt.Errorf("pack: metadata %s is a %v, not an array of strings: %w", RemovedKey, v.Kind(), bpx.ErrFormat)
	}
	// Two passes: the first checks the types and counts the names (at
	// most one per 3 bytes of a packed String), so that the result is
	// allocated once.
	var out []string
	for pass := range 2 {
		n := 0
		for i, e := range v.Array() {
			group := []sd.Value{e}
			if e.Kind() == sd.KindArray {
				group = e.Array()
			}
			for k, g := range group {
				s, ok := g.AsString()
				if !ok {
					where := fmt.Sprintf("%s[%d]", RemovedKey, i)
					if e.Kind() == sd.KindArray {
						where += fmt.Sprintf("[%d]", k)
					}
					return nil, fmt.Errorf("pack: metadata %s is a %v, not a string: %w", where, g.Kind(), bpx.ErrFormat)
				}
				if pass == 0 {
					n += strings.Count(s, packedSep) + 1
					continue
				}
				var err error
				if out, err = appendRemovals(out, s, i, k, e.Kind() == sd.KindArray); err != nil {
					return nil, err
				}
			}
		}
		if pass == 0 {
			out = make([]string, 0, n)
		}
	}
	return out, nil
}

// appendRemovals appends to out the names of the String s, element i of
// the list (element k of group i when inGroup): s itself, or the names
// packed in it.
func appendRemovals(out []string, s string, i, k int, inGroup bool) ([]string, error) {
	packed, isPacked := strings.CutPrefix(s, packedSep)
	if !isPacked {
		if validRemoval(s) {
			return append(out, s), nil
		}
		return nil, removalError(s, i, k, inGroup, 0)
	}
	for j := 1; ; j++ {
		name, rest, more := strings.Cut(packed, packedSep)
		if !validRemoval(name) {
			return nil, removalError(name, i, k, inGroup, j)
		}
		out = append(out, name)
		if !more {
			return out, nil
		}
		packed = rest
	}
}

// removalError reports the invalid name of element i (k of group i when
// inGroup), the j-th name of a packed String when j > 0.
func removalError(name string, i, k int, inGroup bool, j int) error {
	where := fmt.Sprintf("%s[%d]", RemovedKey, i)
	if inGroup {
		where += fmt.Sprintf("[%d]", k)
	}
	if j > 0 {
		where += fmt.Sprintf(" name %d", j)
	}
	return fmt.Errorf("pack: metadata %s = %s is not a valid fs path: %w", where, quoteShort(name), bpx.ErrFormat)
}

// quoteShort quotes s, cut to its first 64 bytes (on a UTF-8 boundary)
// when longer, so that an error does not repeat a hostile name whole.
func quoteShort(s string) string {
	const limit = 64
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:cut], len(s))
}

func validRemoval(name string) bool { return name != "." && fs.ValidPath(name) }

// Remove records names of files or directories that the package removes
// from the packages below it when layered (see RemovedKey). Close writes
// them in the metadata under RemovedKey, after any list that
// SetMetadata or SetMetadataValue put there, and keeps the other
// properties. Each name must be a valid fs path other than ".", in UTF-8
// without NUL bytes (else the error matches ErrInsecurePath); a name given
// twice is recorded once. Any number of names fit (up to the 4 GiB of a
// metadata section); removing a directory removes everything under it in
// one name.
func (w *Writer) Remove(names ...string) error {
	if w.err != nil {
		return w.err
	}
	for _, n := range names {
		if !validRemoval(n) || !utf8.ValidString(n) || strings.IndexByte(n, 0) >= 0 {
			return fmt.Errorf("pack: Remove(%q): %w", n, ErrInsecurePath)
		}
	}
	if w.removedSet == nil {
		w.removedSet = map[string]bool{}
	}
	for _, n := range names {
		if !w.removedSet[n] {
			w.removedSet[n] = true
			w.removed = append(w.removed, n)
		}
	}
	return nil
}

// mergeRemovals adds the names given to Remove to the encoded metadata.
func (w *Writer) mergeRemovals() error {
	if len(w.removed) == 0 {
		return nil
	}
	meta := sd.NewObject()
	if w.meta != nil {
		var err error
		if meta, err = sd.Decode(w.meta); err != nil {
			return err
		}
	}
	var names []string
	if _, ok := meta.Get(RemovedKey); ok {
		old, err := removedList(meta)
		if err != nil {
			return fmt.Errorf("pack: metadata %s set, cannot add the removals: %w", RemovedKey, err)
		}
		names = old
	}
	// The names already listed are kept as they are, in order; names
	// given to Remove are added unless listed.
	seen := make(map[string]bool, len(names)+len(w.removed))
	for _, n := range names {
		seen[n] = true
	}
	for _, n := range w.removed {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	b, err := sd.Encode(meta.Set(RemovedKey, removalArray(names)), w.metaOptions()...)
	if err != nil {
		return fmt.Errorf("pack: metadata with %s: %w", RemovedKey, err)
	}
	w.meta = b
	return nil
}

// removalArray encodes names as the RemovedKey list: one Array of at most
// sd.MaxEntries Strings, one name each when they fit, else names packed
// evenly, in order, as few per String as fill at most sd.MaxEntries.
func removalArray(names []string) sd.Value {
	per := (len(names) + sd.MaxEntries - 1) / sd.MaxEntries
	list := make([]sd.Value, 0, min(len(names), sd.MaxEntries))
	if per <= 1 {
		for _, n := range names {
			list = append(list, sd.String(n))
		}
		return sd.Array(list...)
	}
	var b strings.Builder
	for len(names) > 0 {
		k := min(per, len(names))
		b.Reset()
		for _, n := range names[:k] {
			b.WriteString(packedSep)
			b.WriteString(n)
		}
		list = append(list, sd.String(b.String()))
		names = names[k:]
	}
	return sd.Array(list...)
}
