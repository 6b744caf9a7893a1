package explorer

import "net/http"

// previewRoutes registers the preview endpoints: /api/preview,
// /api/texture.png, /api/mesh, /api/sd, /api/blk and /api/table.
func (s *Server) previewRoutes() {
	s.mux.HandleFunc("GET /api/preview", s.handlePreview)
	s.mux.HandleFunc("GET /api/texture.png", s.handleTexturePNG)
	s.mux.HandleFunc("GET /api/mesh", s.handleMesh)
	s.mux.HandleFunc("GET /api/sd", s.handleSD)
	s.mux.HandleFunc("GET /api/blk", s.handleBLK)
	s.mux.HandleFunc("GET /api/table", s.handleTable)
}

// handlePreview answers /api/preview: the kind of a file and what the page
// needs to show it. A file whose kind fails to decode is "hex" with the
// error, status 200.
func (s *Server) handlePreview(w http.ResponseWriter, r *http.Request) {
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	ans, err := s.previewOf(r, sub)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	writeJSON(w, ans)
}
