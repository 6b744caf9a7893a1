package blk

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// zstdDecompress decodes the zstd frames in src with the given
// dictionaries, failing when the output would exceed max bytes.
func zstdDecompress(src []byte, dicts [][]byte, max int64) ([]byte, error) {
	d, err := newZstdDecoder(dicts, max)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return zstdDecodeWith(d, src)
}

func newZstdDecoder(dicts [][]byte, max int64) (*zstd.Decoder, error) {
	window := max
	if window < zstd.MinWindowSize {
		window = zstd.MinWindowSize
	}
	if window > zstd.MaxWindowSize {
		window = zstd.MaxWindowSize
	}
	opts := []zstd.DOption{
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(max)),
		zstd.WithDecoderMaxWindow(uint64(window)),
		zstd.WithDecoderLowmem(true),
	}
	if len(dicts) > 0 {
		opts = append(opts, zstd.WithDecoderDicts(dicts...))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: bad zstd dictionary: %v", ErrDictRequired, err)
	}
	return d, nil
}

func zstdDecodeWith(d *zstd.Decoder, src []byte) ([]byte, error) {
	out, err := d.DecodeAll(src, nil)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, zstd.ErrUnknownDictionary):
		return nil, fmt.Errorf("%w: %v", ErrDictRequired, err)
	case errors.Is(err, zstd.ErrDecoderSizeExceeded), errors.Is(err, zstd.ErrWindowSizeExceeded):
		return nil, fmt.Errorf("%w: %v", ErrTooLarge, err)
	}
	return nil, err
}

// zstdCompress compresses src as one frame, with dict if not nil. level 0
// means zstd.SpeedBestCompression.
func zstdCompress(src, dict []byte, level zstd.EncoderLevel) ([]byte, error) {
	if level == 0 {
		level = zstd.SpeedBestCompression
	}
	e, err := newZstdEncoder(dict, level)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.EncodeAll(src, nil), nil
}

func newZstdEncoder(dict []byte, level zstd.EncoderLevel) (*zstd.Encoder, error) {
	opts := []zstd.EOption{zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1)}
	if dict != nil {
		opts = append(opts, zstd.WithEncoderDict(dict))
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %v", ErrEncode, err)
	}
	return e, nil
}
