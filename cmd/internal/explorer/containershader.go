package explorer

import (
	"fmt"
	"net/http"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/describe"
	"github.com/gobpx/bpx/types/shader"
)

// The container view of a shader pack shows its layout and symbols, which
// describe.ReadShader reads from the first SymbolTable and Strings
// sections only (shader.ReadSymbols with SkipExtendedData: neither the
// shaders nor the extended data are read). What that takes at most, per
// byte of those sections: a symbol of 12 bytes becomes two structs of
// about 100 bytes (names are shared with the Strings section, read once).
// maxShaderSymbolsJSON bounds the names shown in the answer: one long name
// may name every symbol.
const (
	symbolTableFactor    = 24
	maxShaderSymbolsJSON = 4 << 20
)

// shaderReadCost is what describing the shader pack rd takes at most,
// its answer included: the symbols' JSON (maxShaderSymbolsJSON), in the
// encoder's growing buffer, then the answer.
func shaderReadCost(rd *bpx.Reader) int64 {
	n := int64(3 * maxShaderSymbolsJSON)
	if sec := rd.FindSection(shader.SectionSymbolTable); sec != nil {
		n += symbolTableFactor * int64(sec.USize)
	}
	if sec := rd.FindSection(shader.SectionStrings); sec != nil {
		n += int64(sec.USize)
	}
	return n
}

// describeShader sets out.Shader for a shader pack t: its layout and
// symbols, read under a grant of the preview budget, which it returns for
// the answer to be made and written under (nil when t is no shader pack,
// or its symbols are not read); a pack whose symbols would take more than
// MaxPreviewBytes gets its layout and why the symbols are not shown. It
// never decodes a Shader section (shader.ReadSymbols reads none).
func (s *Server) describeShader(r *http.Request, t *subject, out *containerAnswer) (*grant, error) {
	if t.rd.Header.Type != bpx.TypeShader {
		return nil, nil
	}
	cost := shaderReadCost(t.rd)
	if cost > MaxPreviewBytes {
		layout, _ := shader.Detect(t.rd)
		out.Shader = &describe.Shader{Layout: layout.String(), Error: fmt.Sprintf(
			"symbols not shown: reading them takes %d bytes, above the preview limit of %d", cost, MaxPreviewBytes)}
		return nil, nil
	}
	g, err := s.acquire(r, t.name, cost)
	if err != nil {
		return nil, err
	}
	info := describe.ReadShader(t.rd)
	if info != nil {
		capSymbols(info)
	}
	out.Shader = info
	return g, nil
}

// capSymbols keeps the symbols of info whose names fit in
// maxShaderSymbolsJSON; Error says how many are left out.
func capSymbols(info *describe.Shader) {
	n := 0
	for i, sym := range info.Symbols {
		if n += 6*len(sym.Name) + 80; n > maxShaderSymbolsJSON {
			info.Error = fmt.Sprintf("%d symbols; the first %d shown: the names of the rest are above the preview limit of %d bytes",
				len(info.Symbols), i, maxShaderSymbolsJSON)
			info.Symbols = info.Symbols[:i:i]
			return
		}
	}
}
