package describe

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/shader"
)

// Symbol is one symbol of an SDK 4 shader pack.
type Symbol struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Flags string `json:"flags"`
}

// Shader is what bpx shows of a shader pack beyond its sections: its
// layout and, for the SDK 4 layout, the symbols.
type Shader struct {
	Layout  string   `json:"layout"`
	Symbols []Symbol `json:"symbols,omitempty"`
	// Error says why the layout or the symbols could not be read.
	Error string `json:"error,omitempty"`
}

// ReadShader reads the layout and the symbols of the shader pack r, or
// returns nil if r is none. A pack that does not decode is no error: the
// Shader's Error says why. It decompresses only what it shows: the layout
// comes from the header and section table, the symbols from the
// SymbolTable and Strings sections (shader.ReadSymbols, with its bounds);
// no Shader section and no extended data is read.
func ReadShader(r *bpx.Reader) *Shader {
	if r.Header.Type != bpx.TypeShader {
		return nil
	}
	layout, err := shader.Detect(r)
	info := &Shader{Layout: layout.String()}
	if err != nil {
		info.Error = err.Error()
		return info
	}
	if layout != shader.LayoutSDK4 {
		return info
	}
	syms, err := shader.ReadSymbols(r, shader.SkipExtendedData())
	if err != nil {
		info.Error = err.Error()
		return info
	}
	info.Symbols = make([]Symbol, 0, len(syms))
	for _, sym := range syms {
		info.Symbols = append(info.Symbols, Symbol{sym.Name, sym.Type.String(), sym.Flags.String()})
	}
	return info
}

// WriteText writes the layout and the symbols as the text of "bpx info".
func (si *Shader) WriteText(w io.Writer) {
	fmt.Fprintf(w, "layout:    %s\n", si.Layout)
	if si.Error != "" {
		fmt.Fprintf(w, "symbols:   unreadable: %s\n", si.Error)
		return
	}
	if si.Symbols == nil {
		return
	}
	fmt.Fprintf(w, "symbols:   %d\n", len(si.Symbols))
	width := len("name")
	for _, sym := range si.Symbols {
		width = max(width, len(strconv.Quote(sym.Name)))
	}
	if len(si.Symbols) > 0 {
		fmt.Fprintf(w, "  %-*s  %-14s  %s\n", width, "name", "type", "flags")
	}
	for _, sym := range si.Symbols {
		fmt.Fprintf(w, "  %-*s  %-14s  %s\n", width, strconv.Quote(sym.Name), sym.Type, sym.Flags)
	}
}
