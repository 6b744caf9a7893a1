package texture

// Texture is a decoded BPX texture: its TypeExt and the pixels of all its
// layers, laid out as the package documentation describes.
type Texture struct {
	TypeExt
	// Pix holds every layer, one after the other; its length is
	// TypeExt.PixelArraySize().
	Pix []byte
}

// New returns a Texture over pix, which it keeps without copying. It fails
// (matching ErrInvalid) when ext does not validate or pix does not have
// exactly ext.PixelArraySize() bytes.
func New(ext TypeExt, pix []byte) (*Texture, error) {
	t := &Texture{TypeExt: ext, Pix: pix}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate checks the TypeExt and the size of Pix. Errors match ErrInvalid.
func (t *Texture) Validate() error {
	if err := t.TypeExt.Validate(); err != nil {
		return err
	}
	if want := t.PixelArraySize(); int64(len(t.Pix)) != want {
		return invalidf("%d bytes of pixels, %v wants %d", len(t.Pix), t.TypeExt, want)
	}
	return nil
}

// Layer returns the bytes of layer i (0 ≤ i < Layers()), sharing Pix, or nil
// when i is out of range or Pix is too short.
func (t *Texture) Layer(i int) []byte {
	n := t.LayerSize()
	if i < 0 || i >= t.Layers() || int64(len(t.Pix)) < n*int64(i+1) {
		return nil
	}
	return t.Pix[n*int64(i) : n*int64(i+1) : n*int64(i+1)]
}
