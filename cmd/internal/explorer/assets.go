package explorer

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the page: index.html and the files it loads from /static/.
//
//go:embed web
var web embed.FS

// assetRoutes serves the page and its static files.
func (s *Server) assetRoutes() {
	static, _ := fs.Sub(web, "web")
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "index.html")
	})
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
}
