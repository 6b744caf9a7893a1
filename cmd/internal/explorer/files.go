package explorer

import (
	"net/http"

	"github.com/gobpx/bpx/cmd/internal/describe"
)

// filesAnswer is the answer of /api/files.
type filesAnswer struct {
	Layered   bool       `json:"layered"`
	TreeError string     `json:"treeError"`
	Files     []fileJSON `json:"files"`
}

// fileJSON is one file given to New.
type fileJSON struct {
	ID       int     `json:"id"`
	Name     string  `json:"name"`
	Label    string  `json:"label"`
	Size     int64   `json:"size"`
	Type     any     `json:"type"` // describe.TypeByte; null when no BPX file
	TypeName string  `json:"typeName"`
	Version  uint32  `json:"version"`
	Package  bool    `json:"package"`
	Mount    *string `json:"mount"` // null for a layer of a stack
	Error    string  `json:"error"`
}

// serveFiles answers /api/files: the files given to New.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) {
	out := filesAnswer{Layered: s.cfg.layers, Files: make([]fileJSON, 0, len(s.files))}
	if s.tree.err != nil {
		out.TreeError = s.tree.err.Error()
	}
	for _, in := range s.files {
		f := fileJSON{ID: in.id, Name: in.name, Label: in.label, Size: in.size, Package: in.pkg != nil}
		if in.rd != nil {
			f.Type = describe.TypeByte(in.rd.Header.Type)
			f.TypeName = describe.TypeName(in.rd.Header.Type)
			f.Version = in.rd.Header.Version
		}
		if in.err != nil {
			f.Error = in.err.Error()
		}
		switch {
		case s.cfg.layers:
		case s.tree.byLabel != nil:
			f.Mount = &in.label
		default:
			root := ""
			f.Mount = &root
		}
		out.Files = append(out.Files, f)
	}
	writeJSON(w, out)
}
