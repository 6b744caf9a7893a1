package texture

import (
	"io"

	"github.com/gobpx/bpx"
)

// SectionPixelArray is the section type of the PixelArray.
const SectionPixelArray = 1

// Read decodes the texture of an opened container: the main header's Type
// must be 'T', its TypeExt valid, and it must hold exactly one PixelArray
// section of the size the TypeExt gives; that size is checked before the
// section is read. Sections of other types are ignored.
func Read(r *bpx.Reader) (*Texture, error) {
	if r.Header.Type != bpx.TypeTexture {
		return nil, formatErr(-1, 3, "type %q is not a texture ('T')", r.Header.Type)
	}
	ext, err := ParseTypeExt(r.Header.TypeExt)
	if err != nil {
		return nil, err
	}
	secs := r.SectionsOfType(SectionPixelArray)
	switch {
	case len(secs) == 0:
		return nil, formatErr(-1, tableOffset(r, 0), "no PixelArray section (type 1)")
	case len(secs) > 1:
		return nil, formatErr(-1, tableOffset(r, secs[1].Index),
			"second PixelArray section %d (the spec allows one)", secs[1].Index)
	}
	s := secs[0]
	want := ext.PixelArraySize()
	if int64(s.USize) != want {
		return nil, formatErr(s.Index, 0, "PixelArray holds %d bytes, %v needs %d", s.USize, ext, want)
	}
	pix, err := s.Data()
	if err != nil {
		return nil, err
	}
	if int64(len(pix)) != want {
		return nil, formatErr(s.Index, int64(len(pix)), "PixelArray decoded to %d bytes, %v needs %d", len(pix), ext, want)
	}
	return &Texture{TypeExt: ext, Pix: pix}, nil
}

// Write stores t in w: it sets the container's Type to 'T' and its TypeExt,
// and adds the PixelArray section stored as o asks. The caller closes w.
// It fails (matching ErrInvalid) when t does not validate, and otherwise only
// with w's errors.
func Write(w *bpx.Writer, t *Texture, o bpx.SectionOptions) error {
	if err := t.Validate(); err != nil {
		return err
	}
	w.SetType(bpx.TypeTexture)
	w.SetTypeExt(t.TypeExt.Marshal())
	return w.WriteSection(SectionPixelArray, o, t.Pix)
}

// Encode writes t to out as a complete BPX container, its PixelArray stored
// as o asks. Nothing is written when t does not validate.
func Encode(out io.Writer, t *Texture, o bpx.SectionOptions) error {
	if err := t.Validate(); err != nil {
		return err
	}
	w := bpx.NewWriter(out)
	if err := Write(w, t, o); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// tableOffset returns the file offset of entry i of r's section table.
// Version-0 draft files have a 32-byte header and 16-byte entries.
func tableOffset(r *bpx.Reader, i int) int64 {
	if r.Header.Version == 0 {
		return 32 + 16*int64(i)
	}
	return bpx.MainHeaderSize + bpx.SectionHeaderSize*int64(i)
}
