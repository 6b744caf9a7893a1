package shader

import (
	"io"
	"math"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Section options of the reference SDK 4 writer, which WritePack uses: the
// reference asks for zlib on the Strings, SymbolTable and ExtendedData
// sections but its zlib never engages below its 64 KiB threshold (and cannot
// be read back above it), so they are stored raw here.
var (
	packTableOptions  = bpx.SectionOptions{Checksum: bpx.ChecksumWeak}
	packExtOptions    = bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}
	packShaderOptions = bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: bpx.DefaultThreshold}
)

// Validate checks that p can be written: a known target and type, at most
// 65535 symbols with known types, names a string section can hold,
// extended data exactly on the symbols flagged FlagExtendedData, encodable
// and addressable below offset 0xFFFFFF, and known shader stages. Errors
// match ErrInvalid.
func (p *Pack) Validate() error {
	_, _, _, err := p.build()
	return err
}

// build validates p and returns its Strings, SymbolTable and ExtendedData
// sections.
func (p *Pack) build() (strs, tab, ext []byte, err error) {
	if !p.Target.Valid() {
		return nil, nil, nil, invalidf("unknown target %v", p.Target)
	}
	if p.Type != TypeAssembly && p.Type != TypePipeline {
		return nil, nil, nil, invalidf("type %v is neither Assembly nor Pipeline", p.Type)
	}
	if len(p.Symbols) > math.MaxUint16 {
		return nil, nil, nil, invalidf("%d symbols, at most 65535 fit the TypeExt", len(p.Symbols))
	}
	var names bpxstrings.Builder
	tab = make([]byte, 0, len(p.Symbols)*SymbolSize)
	written := map[*sd.Object]uint32{} // extended data offsets, each object once
	for k, s := range p.Symbols {
		name, err := names.Add(s.Name)
		if err != nil {
			return nil, nil, nil, invalidf("symbol %d name: %v", k, err)
		}
		if s.Type > SymbolOutput {
			return nil, nil, nil, invalidf("symbol %d has unknown type %v", k, s.Type)
		}
		if (s.Flags&FlagExtendedData != 0) != (s.Extended != nil) {
			return nil, nil, nil, invalidf("symbol %d: FlagExtendedData is %v but Extended is %v", k, s.Flags&FlagExtendedData != 0, s.Extended != nil)
		}
		ptr := uint32(noExtendedData)
		if s.Extended != nil {
			var seen bool
			if ptr, seen = written[s.Extended]; !seen {
				if len(ext) >= noExtendedData {
					return nil, nil, nil, invalidf("symbol %d: extended data beyond offset 0xFFFFFF", k)
				}
				ptr = uint32(len(ext))
				if ext, err = sd.Append(ext, s.Extended); err != nil {
					return nil, nil, nil, invalidf("symbol %d extended data: %v", k, err)
				}
				written[s.Extended] = ptr
			}
		}
		tab = le.AppendUint32(tab, name)
		tab = le.AppendUint32(tab, ptr)
		tab = le.AppendUint16(tab, uint16(s.Flags))
		tab = append(tab, uint8(s.Type), s.Register)
	}
	for i, sh := range p.Shaders {
		if sh.Stage > StagePixel {
			return nil, nil, nil, invalidf("shader %d has unknown stage %v", i, sh.Stage)
		}
		if uint64(len(sh.Data)) >= math.MaxUint32 {
			return nil, nil, nil, invalidf("shader %d of %d bytes does not fit a section", i, len(sh.Data))
		}
	}
	return names.Bytes(), tab, ext, nil
}

// WritePack stores p in w the way the reference SDK 4 does: Type 'S', the
// TypeExt, then the Strings and SymbolTable sections (weak checksum), the
// ExtendedData section when a symbol has extended data (CRC32), and one
// Shader section per shader (CRC32, xz above 64 KiB). The caller closes w.
// A pack written so is byte for byte what the reference writes for the same
// content, except that a repeated name, and an extended-data object shared
// (by pointer) between symbols, are stored once (the reference stores them
// again for each symbol; readers cannot tell).
func WritePack(w *bpx.Writer, p *Pack) error {
	strs, tab, ext, err := p.build()
	if err != nil {
		return err
	}
	w.SetType(bpx.TypeShader)
	w.SetTypeExt(PackTypeExt{AssemblyHash: p.AssemblyHash, NumSymbols: uint16(len(p.Symbols)), Target: p.Target, Type: p.Type}.Marshal())
	if err := w.WriteSection(SectionStrings, packTableOptions, strs); err != nil {
		return err
	}
	if err := w.WriteSection(SectionSymbolTable, packTableOptions, tab); err != nil {
		return err
	}
	if ext != nil {
		if err := w.WriteSection(SectionExtendedData, packExtOptions, ext); err != nil {
			return err
		}
	}
	for _, sh := range p.Shaders {
		if err := w.WriteSection(SectionShader, packShaderOptions, []byte{uint8(sh.Stage)}, sh.Data); err != nil {
			return err
		}
	}
	return nil
}

// EncodePack writes p to out as a complete BPX container (see WritePack).
// Nothing is written when p does not validate.
func EncodePack(out io.Writer, p *Pack) error {
	return encode(out, p.Validate, func(w *bpx.Writer) error { return WritePack(w, p) })
}

// encode validates, then writes a container with write.
func encode(out io.Writer, validate func() error, write func(*bpx.Writer) error) error {
	if err := validate(); err != nil {
		return err
	}
	w := bpx.NewWriter(out)
	if err := write(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
