package pack

import (
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// RemovedKey is the metadata property that lists the names a mod package
// removes from the packages below it when they are layered (see package
// github.com/gobpx/bpx/overlay): an Array of Strings, each a valid fs path
// other than "." naming a file or a directory (with everything under it).
// BPX has no field for this; it is a convention of this module. An Array
// holds at most sd.MaxEntries (255) values, so a longer list is stored as
// an Array of such Arrays (groups), at most MaxRemovals names in all;
// readers accept Strings and groups mixed.
const RemovedKey = "__removed__"

// MaxRemovals is the longest removal list a package can hold: 255 groups
// of 255 names.
const MaxRemovals = sd.MaxEntries * sd.MaxEntries

// Removed returns the names listed under RemovedKey in the package's
// metadata, in their stored order, or nil when there are none. A list of
// another type, an element that is not a String or a name that is not a
// valid fs path (or is ".") is an error matching bpx.ErrFormat, as is
// metadata that does not decode.
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
	elems := v.Array()
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		group := []sd.Value{e}
		if e.Kind() == sd.KindArray {
			group = e.Array()
		}
		for k, g := range group {
			where := fmt.Sprintf("%s[%d]", RemovedKey, i)
			if e.Kind() == sd.KindArray {
				where += fmt.Sprintf("[%d]", k)
			}
			s, ok := g.AsString()
			if !ok {
				return nil, fmt.Errorf("pack: metadata %s is a %v, not a string: %w", where, g.Kind(), bpx.ErrFormat)
			}
			if !validRemoval(s) {
				return nil, fmt.Errorf("pack: metadata %s = %q is not a valid fs path: %w", where, s, bpx.ErrFormat)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func validRemoval(name string) bool { return name != "." && fs.ValidPath(name) }

// Remove records names of files or directories that the package removes
// from the packages below it when layered (see RemovedKey). Close writes
// them in the metadata under RemovedKey, after any list that
// SetMetadata or SetMetadataValue put there, and keeps the other
// properties. Each name must be a valid fs path other than ".", in UTF-8
// without NUL bytes (else the error matches ErrInsecurePath); a name given
// twice is recorded once. At most MaxRemovals names fit (more is an error
// matching bpx.ErrTooLarge): remove a directory to remove many files.
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
		if w.removedSet[n] {
			continue
		}
		if len(w.removed) == MaxRemovals {
			return fmt.Errorf("pack: Remove(%q): more than %d removals: %w", n, MaxRemovals, bpx.ErrTooLarge)
		}
		w.removedSet[n] = true
		w.removed = append(w.removed, n)
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
	// The list already there is kept as it is; names given to Remove
	// are added unless it holds them.
	seen := make(map[string]bool, len(names)+len(w.removed))
	list := make([]sd.Value, 0, len(names)+len(w.removed))
	for _, n := range names {
		seen[n] = true
		list = append(list, sd.String(n))
	}
	for _, n := range w.removed {
		if !seen[n] {
			seen[n] = true
			list = append(list, sd.String(n))
		}
	}
	if len(list) > MaxRemovals {
		return fmt.Errorf("pack: metadata %s: %d removals: %w", RemovedKey, len(list), bpx.ErrTooLarge)
	}
	if len(list) > sd.MaxEntries {
		var groups []sd.Value
		for len(list) > 0 {
			k := min(len(list), sd.MaxEntries)
			groups = append(groups, sd.Array(list[:k]...))
			list = list[k:]
		}
		list = groups
	}
	b, err := sd.Encode(meta.Set(RemovedKey, sd.Array(list...)), w.metaOptions()...)
	if err != nil {
		return fmt.Errorf("pack: metadata with %s: %w", RemovedKey, err)
	}
	w.meta = b
	return nil
}
