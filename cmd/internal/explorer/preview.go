package explorer

// previewRoutes registers the preview endpoints: /api/preview,
// /api/texture.png, /api/mesh, /api/sd, /api/blk and /api/table.
func (s *Server) previewRoutes() {}
