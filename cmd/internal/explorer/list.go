package explorer

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
)

// listAnswer is the answer of /api/list.
type listAnswer struct {
	Dir     string      `json:"dir"`
	Offset  int         `json:"offset"`
	Limit   int         `json:"limit"`
	Total   int         `json:"total"`
	Next    int         `json:"next"` // where the next page starts (Total after the last)
	Entries []entryJSON `json:"entries"`
}

// entryJSON is one entry of a listing.
type entryJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
	Kind string `json:"kind"`
}

// jsonSize bounds the bytes of e in JSON.
func (e *entryJSON) jsonSize() int {
	return 64 + jsonLen(e.Name) + jsonLen(e.Path) + len(e.Kind)
}

// serveList answers /api/list: one page of a directory, or with deep=1 of
// every file below it.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	dir := q.Get("dir")
	if dir == "" {
		dir = "."
	}
	if !fs.ValidPath(dir) {
		fail(w, badRequestf("dir=%q is no directory path of the tree", dir))
		return
	}
	offset, limit, err := pageParams(r)
	if err != nil {
		fail(w, err)
		return
	}
	key := listKey{dir: dir, q: strings.ToLower(q.Get("q")), deep: q.Get("deep") == "1"}
	ents, err := s.listing(r.Context(), key)
	if r.Context().Err() != nil {
		return // the request is gone
	}
	if err != nil {
		fail(w, err)
		return
	}
	lo, hi := page(ents.len(), offset, limit)
	out := listAnswer{Dir: q.Get("dir"), Offset: offset, Limit: limit, Total: ents.len(), Entries: make([]entryJSON, 0, hi-lo)}
	var size pageSize
	for i := lo; i < hi; i++ {
		e := ents.entry(i)
		p := e.name
		if dir != "." {
			p = dir + "/" + e.name
		}
		name := e.name
		if key.deep {
			name = path.Base(e.name)
		}
		kind := "dir"
		if !e.dir {
			kind = kindOf(name)
		}
		ej := entryJSON{name, p, e.dir, e.size, kind}
		if !size.fits(ej.jsonSize()) {
			break
		}
		out.Entries = append(out.Entries, ej)
	}
	out.Next = lo + len(out.Entries)
	writeJSON(w, out)
}

// listEntry is an entry of a listing as cached: its name in the directory
// (its path below the directory for a deep listing), kept small.
type listEntry struct {
	name string
	size int64
	dir  bool
}

// listKey names a listing: a directory, the lower-case filter, and
// whether the listing is deep.
type listKey struct {
	dir, q string
	deep   bool
}

// listing returns the ordered entries key names, from the cache or built
// (and cached). It stops when ctx is done.
func (s *Server) listing(ctx context.Context, key listKey) (*listing, error) {
	var all *listing
	if key.q != "" && !key.deep {
		// The filter of a listing: the listing first (under a build
		// token of its own, so not inside the filter's).
		var err error
		if all, err = s.listing(ctx, listKey{dir: key.dir}); err != nil {
			return nil, err
		}
	}
	return s.lists.get(ctx, key, func(b *listBudget) (*listing, error) {
		in, sub := s.packageDir(key.dir)
		switch {
		case key.deep:
			if in != nil {
				if l, ok, err := s.packageDeepListing(b, in, key.dir, sub, key.q); ok {
					return l, err
				}
			}
			return s.deepListing(b, key.dir, key.q)
		case all != nil:
			return filterEntries(b, all, key.q)
		}
		if in != nil {
			if l, ok, err := cleanListing(b, in.pkg, sub); ok {
				return l, err
			}
		}
		return readListing(b, s.tree, key.dir)
	})
}

// readListing reads directory dir of fsys: directories first, then
// files, each group sorted by name. Entries are read in chunks, so that a
// directory of a million objects never holds a million fs.DirEntry
// values at once; the groups come sorted from every fs.FS of the tree
// (fs.ReadDirFile returns them so), so ordering costs one pass.
// The names are those of the fs.DirEntry values, which the tree's file
// systems take from the packages' object names: the listing shares them.
func readListing(b *listBudget, fsys fs.FS, dir string) (*listing, error) {
	fi, err := fs.Stat(fsys, dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, badRequestf("%s is not a directory", dir)
	}
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, badRequestf("%s cannot be listed", dir)
	}
	c := collector{b: b}
	ndirs := 0
	for {
		chunk, err := d.ReadDir(4096)
		for _, de := range chunk {
			e := listEntry{name: de.Name(), dir: de.IsDir()}
			if !e.dir {
				if info, err := de.Info(); err == nil {
					e.size = info.Size()
				}
			} else {
				ndirs++
			}
			if err := c.add(e, false); err != nil {
				return nil, err
			}
		}
		if err == io.EOF || len(chunk) == 0 {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if !slices.IsSortedFunc(c.ents, cmpName) {
		slices.SortFunc(c.ents, cmpName)
	}
	return c.listing(dirsFirst(c.ents, ndirs)), nil
}

func cmpName(a, b listEntry) int { return strings.Compare(a.name, b.name) }

// dirsFirst moves the ndirs directories of ents before its files, keeping
// the order within each group.
func dirsFirst(ents []listEntry, ndirs int) []listEntry {
	if ndirs == 0 || ndirs == len(ents) {
		return ents
	}
	out := make([]listEntry, 0, len(ents))
	for _, e := range ents {
		if e.dir {
			out = append(out, e)
		}
	}
	for _, e := range ents {
		if !e.dir {
			out = append(out, e)
		}
	}
	return out
}

// filterEntries keeps the entries of l whose name contains q (lower
// case) in any case. The names are l's (shared with the packages).
func filterEntries(b *listBudget, l *listing, q string) (*listing, error) {
	c := collector{b: b}
	for i := range l.len() {
		if e := l.entry(i); containsFold(e.name, q) {
			if err := c.add(e, false); err != nil {
				return nil, err
			}
		}
	}
	return c.listing(c.ents), nil
}

// containsFold reports whether s contains the lower-case q in any case.
func containsFold(s, q string) bool {
	return strings.Contains(strings.ToLower(s), q)
}

// deepListing lists every file below dir whose path below dir contains q
// in any case, sorted by path. The paths are made for the listing (it
// owns them): this is the way of a stack, which has no object table.
func (s *Server) deepListing(b *listBudget, dir, q string) (*listing, error) {
	fi, err := fs.Stat(s.tree, dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, badRequestf("%s is not a directory", dir)
	}
	c := collector{b: b}
	err = fs.WalkDir(s.tree, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return b.charge(0) // a gone request stops between directories too
		}
		rel := p
		if dir != "." {
			rel = strings.TrimPrefix(p, dir+"/")
		}
		if p == dir || !containsFold(rel, q) {
			return nil
		}
		e := listEntry{name: rel}
		if info, err := d.Info(); err == nil {
			e.size = info.Size()
		}
		return c.add(e, true)
	})
	if err != nil {
		return nil, err
	}
	if !slices.IsSortedFunc(c.ents, cmpName) {
		slices.SortFunc(c.ents, cmpName)
	}
	return c.listing(c.ents), nil
}

// kindOf guesses the preview kind of a file from its name.
func kindOf(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg":
		return "image"
	case ".txt", ".md", ".json", ".xml", ".ini", ".cfg", ".csv", ".yaml", ".yml", ".toml",
		".lua", ".glsl", ".hlsl", ".vert", ".frag", ".shader", ".log":
		return "text"
	case ".blk", ".bo3d", ".bpx":
		return ext[1:]
	}
	return "file"
}
