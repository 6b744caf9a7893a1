package explorer

// browseRoutes registers the endpoints of the tree and the containers:
// /raw/, /api/files, /api/list, /api/invalid, /api/object,
// /api/container, /api/verify and /api/section.
func (s *Server) browseRoutes() {}
