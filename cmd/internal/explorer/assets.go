package explorer

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// web holds the page: index.html and the files it loads from /static/
// (web/static/): plain JavaScript modules, one style sheet and the icon,
// with no build step and nothing loaded from elsewhere.
//
//go:embed web
var web embed.FS

// assetRoutes serves the page and its static files. They are always
// revalidated (no-cache): they are small, and a newer binary must not run
// with an older page's scripts.
func (s *Server) assetRoutes() {
	root, _ := fs.Sub(web, "web")
	files := http.FileServerFS(root)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, root, "index.html")
	})
	s.mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			writeError(w, http.StatusNotFound, badRequestf("no such page: %s", r.URL.Path))
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
