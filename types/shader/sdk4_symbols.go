package shader

import "github.com/gobpx/bpx"

// Bounds of ReadSymbols on the Strings and ExtendedData sections: each may
// decode to at most symbolDataPerSymbol bytes per symbol the TypeExt
// declares, or minSymbolData when that is more. The reference SDK 4
// cannot save either section above 64 KiB (its zlib fails there), so every
// file it writes passes.
const (
	minSymbolData       = 64 << 10
	symbolDataPerSymbol = 256
)

// symbolDataLimit is the most ReadSymbols reads of the Strings and of the
// ExtendedData section for n symbols: 64 KiB up to 256 symbols, 16 MiB for
// 65535.
func symbolDataLimit(n uint16) int64 { return max(minSymbolData, int64(n)*symbolDataPerSymbol) }

// ReadOption configures ReadSymbols.
type ReadOption func(*symbolRead)

// SkipExtendedData makes ReadSymbols leave every symbol's Extended nil,
// whatever its flags, and not read the ExtendedData section at all: for
// callers that show names, types and flags only.
func SkipExtendedData() ReadOption { return func(c *symbolRead) { c.skipExt = true } }

// ReadSymbols reads the symbols of a shader pack in the reference SDK 4
// layout, with the checks of ReadPack, but no Shader section: what a
// listing or a description of the pack needs. Its work and memory are
// bounded by the symbol count, however large the shaders are:
//
//   - the SymbolTable must be exactly 12 bytes per symbol of the TypeExt's
//     count (at most 65535): a section header that says otherwise is an
//     error before anything is decompressed, and a stream longer than the
//     header says is decompressed no further than one byte past it;
//   - the Strings section, and the ExtendedData section when a symbol
//     flags extended data, may each decode to at most 256 bytes per
//     symbol, or 64 KiB when that is more (16 MiB for 65535 symbols). A
//     larger one is an error matching bpx.ErrTooLarge, found from its
//     header before decompressing it (or after decompressing one byte
//     past the bound when the header does not tell its size; see
//     bpx.Section.DecodedSize);
//   - every section read is read whole and its checksum verified.
//
// Errors are those of ReadPack. The Type, Target and AssemblyHash are in
// the TypeExt: see ParsePackTypeExt.
func ReadSymbols(r *bpx.Reader, opts ...ReadOption) ([]Symbol, error) {
	ext, _ := ParsePackTypeExt(r.Header.TypeExt) // readPackSymbols reports its errors
	c := symbolRead{limit: symbolDataLimit(ext.NumSymbols)}
	for _, o := range opts {
		o(&c)
	}
	_, syms, err := readPackSymbols(r, c)
	return syms, err
}
