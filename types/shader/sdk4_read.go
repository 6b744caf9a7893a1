package shader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
)

var le = binary.LittleEndian

// ReadPack decodes a shader pack in the reference SDK 4 layout. The main
// header's Type must be 'S' and its TypeExt pass ParsePackTypeExt; the first
// SymbolTable section (required) must hold exactly the TypeExt's symbol
// count; names come from the first Strings section and extended data from
// the first ExtendedData section; every Shader section needs its stage byte.
// Sections of other types are ignored. Shader.Data shares the section's
// buffer. To read the symbols alone, without the shaders, use ReadSymbols.
func ReadPack(r *bpx.Reader) (*Pack, error) {
	ext, syms, err := readPackSymbols(r, symbolRead{})
	if err != nil {
		return nil, err
	}
	p := &Pack{AssemblyHash: ext.AssemblyHash, Target: ext.Target, Type: ext.Type, Symbols: syms}
	for _, s := range r.SectionsOfType(SectionShader) {
		sh, err := readShader(s)
		if err != nil {
			return nil, err
		}
		p.Shaders = append(p.Shaders, sh)
	}
	return p, nil
}

// symbolRead says how readPackSymbols reads the sections it needs beside
// the SymbolTable. The zero value reads them whole, as ReadPack does.
type symbolRead struct {
	// limit, if positive, is the most of the Strings and of the
	// ExtendedData section read; a larger one is an ErrTooLarge error.
	limit int64
	// skipExt leaves extended data undecoded (SkipExtendedData).
	skipExt bool
}

// names reads the Strings section s whole into a Table, refusing it
// above c.limit (see bounded).
func (c symbolRead) names(s *bpx.Section) (*bpxstrings.Table, error) {
	if c.limit <= 0 {
		data, err := s.Data()
		return bpxstrings.NewTable(data), err
	}
	var sb strings.Builder // becomes the Table's string, not copied
	if err := c.bounded(s, "Strings", &sb); err != nil {
		return nil, err
	}
	return bpxstrings.NewTableString(sb.String()), nil
}

// extended reads the ExtendedData section s whole, refusing it above
// c.limit (see bounded).
func (c symbolRead) extended(s *bpx.Section) ([]byte, error) {
	if c.limit <= 0 {
		return s.Data()
	}
	var b bytes.Buffer
	err := c.bounded(s, "ExtendedData", &b)
	return b.Bytes(), err
}

// bounded reads the section s whole into dst, or refuses it above
// c.limit: from its header when that tells its size, else after
// decompressing one byte too many.
func (c symbolRead) bounded(s *bpx.Section, what string, dst buffer) error {
	tooLarge := func(size string) error {
		return fmt.Errorf("shader: %s section %d holds %s bytes, more than the %d read for the symbols: %w", what, s.Index, size, c.limit, bpx.ErrTooLarge)
	}
	if n, ok := s.DecodedSize(); ok && n > c.limit {
		return tooLarge(strconv.FormatInt(n, 10))
	}
	if err := readAtMost(s, c.limit, dst); err != nil {
		return err
	}
	if int64(dst.Len()) > c.limit {
		return tooLarge("more than " + strconv.FormatInt(c.limit, 10))
	}
	return nil
}

// readPackSymbols checks r's Type and TypeExt and reads the symbols of
// the SDK 4 pack r as c says, reading no Shader section.
func readPackSymbols(r *bpx.Reader, c symbolRead) (PackTypeExt, []Symbol, error) {
	if r.Header.Type != bpx.TypeShader {
		return PackTypeExt{}, nil, formatErr(-1, 3, "type %q is not a shader pack ('S')", r.Header.Type)
	}
	ext, err := ParsePackTypeExt(r.Header.TypeExt)
	if err != nil {
		return ext, nil, headerTypeExtErr(r, err)
	}
	st := r.FindSection(SectionSymbolTable)
	if st == nil {
		return ext, nil, formatErr(-1, tableOffset(r, 0), "no SymbolTable section (type 2)")
	}
	tab, err := readSymbolTable(st, ext.NumSymbols)
	if err != nil || ext.NumSymbols == 0 {
		return ext, nil, err
	}
	syms, err := readSymbols(r, st, tab, c)
	return ext, syms, err
}

// readSymbolTable reads the SymbolTable st, which must hold exactly n
// symbols: a header that says otherwise is refused before decompressing,
// and the section is decompressed no further than one byte past n
// symbols.
func readSymbolTable(st *bpx.Section, n uint16) ([]byte, error) {
	want := int64(n) * SymbolSize
	if size, ok := st.DecodedSize(); ok && size != want {
		return nil, formatErr(st.Index, min(size, want), "SymbolTable holds %d bytes, the TypeExt's %d symbols need %d", size, n, want)
	}
	var buf bytes.Buffer
	err := readAtMost(st, want, &buf)
	tab := buf.Bytes()
	switch {
	case err != nil:
		return nil, err
	case int64(len(tab)) > want:
		return nil, formatErr(st.Index, want, "SymbolTable holds more than the %d bytes the TypeExt's %d symbols need", want, n)
	case int64(len(tab)) < want:
		return nil, formatErr(st.Index, int64(len(tab)), "SymbolTable holds %d bytes, the TypeExt's %d symbols need %d", len(tab), n, want)
	}
	return tab, nil
}

// buffer is what readAtMost fills: a *bytes.Buffer or *strings.Builder.
type buffer interface {
	io.Writer
	Grow(n int)
	Len() int
}

// readAtMost reads the section s into dst: whole, decompressed and
// verified, when it decodes to at most limit bytes; otherwise its first
// limit+1 bytes, unverified, decompressing no further. dst grows to the
// section's size first when its header tells it, else with the data.
func readAtMost(s *bpx.Section, limit int64, dst buffer) error {
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	size := min(limit, 64<<10)
	if n, ok := s.DecodedSize(); ok {
		size = min(limit, n)
	}
	dst.Grow(int(size) + 1) // one more byte: room to see EOF, or that there is more
	// Only Write: a bytes.Buffer reading for itself would grow past size.
	_, err = io.Copy(struct{ io.Writer }{dst}, io.LimitReader(rc, limit+1))
	return err
}

func readShader(s *bpx.Section) (Shader, error) {
	data, err := s.Data()
	if err != nil {
		return Shader{}, err
	}
	if len(data) == 0 {
		return Shader{}, formatErr(s.Index, 0, "empty Shader section: no stage byte")
	}
	if data[0] > uint8(StagePixel) {
		return Shader{}, formatErr(s.Index, 0, "unknown shader stage %d", data[0])
	}
	return Shader{Stage: Stage(data[0]), Data: data[1:]}, nil
}

// readSymbols decodes the symbol table tab of section st.
func readSymbols(r *bpx.Reader, st *bpx.Section, tab []byte, c symbolRead) ([]Symbol, error) {
	ss := r.FindSection(SectionStrings)
	if ss == nil {
		return nil, formatErr(-1, tableOffset(r, 0), "no Strings section (type 255) for the symbol names")
	}
	names, err := c.names(ss)
	if err != nil {
		return nil, err
	}
	ext := extendedReader{r: r, c: c}
	syms := make([]Symbol, len(tab)/SymbolSize)
	for k := range syms {
		b := tab[k*SymbolSize:]
		off := int64(k * SymbolSize)
		sym := &syms[k]
		if sym.Name, err = names.Get(le.Uint32(b)); err != nil {
			return nil, &bpx.FormatError{Offset: off, Section: st.Index, What: "symbol name", Err: err}
		}
		sym.Flags = SymbolFlags(le.Uint16(b[8:]))
		sym.Type = SymbolType(b[10])
		sym.Register = b[11]
		if sym.Type > SymbolOutput {
			return nil, formatErr(st.Index, off+10, "symbol %d has unknown type %d", k, b[10])
		}
		if sym.Flags&FlagExtendedData != 0 && !c.skipExt {
			if sym.Extended, err = ext.object(st.Index, off+4, le.Uint32(b[4:])); err != nil {
				return nil, err
			}
		}
	}
	return syms, nil
}

// extendedReader decodes the objects of the ExtendedData section, each
// offset once. Objects may be shared but not overlap, so the decoding work
// is bounded by the section's size.
type extendedReader struct {
	r       *bpx.Reader
	c       symbolRead
	sec     *bpx.Section
	data    []byte
	objs    map[uint32]*sd.Object
	decoded int
}

// object returns the object at offset ptr, for the symbol field at offset
// fieldOff of section symSec.
func (e *extendedReader) object(symSec int, fieldOff int64, ptr uint32) (*sd.Object, error) {
	if e.sec == nil {
		if e.sec = e.r.FindSection(SectionExtendedData); e.sec == nil {
			return nil, formatErr(symSec, fieldOff, "symbol has extended data but there is no ExtendedData section (type 3)")
		}
		var err error
		if e.data, err = e.c.extended(e.sec); err != nil {
			return nil, err
		}
		e.objs = map[uint32]*sd.Object{}
	}
	if o, ok := e.objs[ptr]; ok {
		return o, nil
	}
	if uint64(ptr) >= uint64(len(e.data)) {
		return nil, formatErr(symSec, fieldOff, "extended data offset %d beyond the %d-byte ExtendedData section %d", ptr, len(e.data), e.sec.Index)
	}
	o, n, err := sd.DecodePrefix(e.data[ptr:])
	if err != nil {
		return nil, &bpx.FormatError{Offset: int64(ptr), Section: e.sec.Index, What: "extended data object", Err: err}
	}
	if e.decoded += n; e.decoded > len(e.data) {
		return nil, formatErr(e.sec.Index, int64(ptr), "extended data object at offset %d overlaps another", ptr)
	}
	e.objs[ptr] = o
	return o, nil
}
