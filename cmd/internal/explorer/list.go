package explorer

import (
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
	ents, err := s.listing(key)
	if err != nil {
		fail(w, err)
		return
	}
	lo, hi := page(ents.len(), offset, limit)
	out := listAnswer{Dir: q.Get("dir"), Offset: offset, Limit: limit, Total: ents.len(), Entries: make([]entryJSON, 0, hi-lo)}
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
		out.Entries = append(out.Entries, entryJSON{name, p, e.dir, e.size, kind})
	}
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
// (and cached).
func (s *Server) listing(key listKey) (*listing, error) {
	return s.lists.get(key, func() (*listing, error) {
		p, sub, isPkg := s.packageDir(key.dir)
		switch {
		case key.deep:
			if isPkg {
				if ents, ok := s.cleanDeepListing(p, sub, key.q); ok {
					return &listing{ents: ents}, nil
				}
			}
			ents, err := s.deepListing(key.dir, key.q)
			return &listing{ents: ents}, err
		case key.q != "":
			all, err := s.listing(listKey{dir: key.dir})
			if err != nil {
				return nil, err
			}
			return &listing{ents: filterEntries(all, key.q)}, nil
		}
		if isPkg {
			if l, ok := s.cleanListing(p, sub); ok {
				return l, nil
			}
		}
		ents, err := readListing(s.tree, key.dir)
		return &listing{ents: ents}, err
	})
}

// readListing reads directory dir of fsys: directories first, then
// files, each group sorted by name. Entries are read in chunks, so that a
// directory of a million objects never holds a million fs.DirEntry
// values at once; the groups come sorted from every fs.FS of the tree
// (fs.ReadDirFile returns them so), so ordering costs one pass.
func readListing(fsys fs.FS, dir string) ([]listEntry, error) {
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
	var ents []listEntry
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
			ents = append(ents, e)
		}
		if err == io.EOF || len(chunk) == 0 {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if !slices.IsSortedFunc(ents, cmpName) {
		slices.SortFunc(ents, cmpName)
	}
	return dirsFirst(ents, ndirs), nil
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

// filterEntries keeps the entries whose name contains q (lower case) in
// any case.
func filterEntries(l *listing, q string) []listEntry {
	var out []listEntry
	for i := range l.len() {
		if e := l.entry(i); containsFold(e.name, q) {
			out = append(out, e)
		}
	}
	return out
}

// containsFold reports whether s contains the lower-case q in any case.
func containsFold(s, q string) bool {
	return strings.Contains(strings.ToLower(s), q)
}

// deepListing lists every file below dir whose path below dir contains q
// in any case, sorted by path.
func (s *Server) deepListing(dir, q string) ([]listEntry, error) {
	fi, err := fs.Stat(s.tree, dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, badRequestf("%s is not a directory", dir)
	}
	var out []listEntry
	err = fs.WalkDir(s.tree, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
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
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !slices.IsSortedFunc(out, cmpName) {
		slices.SortFunc(out, cmpName)
	}
	return out, nil
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
