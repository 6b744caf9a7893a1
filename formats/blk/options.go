package blk

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Option configures NewDecoder and NewEncoder, in the module's one idiom
// (see bpx.Option): WithX(value) for settings, a verb phrase for switches,
// each checked when applied. WithNameMap and WithDicts apply to both;
// WithMaxSize only to decoding; WithLevel, InternStrings and
// PackLikeEngine only to encoding (the other constructor ignores them).
type Option func(*config) error

type config struct {
	nameMap        *NameMap
	dicts          [][]byte
	maxSize        int64
	level          zstd.EncoderLevel
	internStrings  bool
	packLikeEngine bool
}

func (c *config) apply(opts []Option) error {
	for _, o := range opts {
		if err := o(c); err != nil {
			return err
		}
	}
	return nil
}

// WithNameMap sets the shared name map of the SLIM kinds (3, 4, 5).
func WithNameMap(nm *NameMap) Option {
	return func(c *config) error { c.nameMap = nm; return nil }
}

// WithDicts sets the zstd dictionaries (raw dictionary files): a frame
// being decoded picks its dictionary by the ID in its header; the encoder
// of KindSlimZstdDict uses the first.
func WithDicts(dicts ...[]byte) Option {
	return func(c *config) error { c.dicts = append(c.dicts, dicts...); return nil }
}

// WithMaxSize limits the decompressed size of a compressed BLK (default
// DefaultMaxSize; on 32-bit platforms at most math.MaxInt-1). n must be at
// least 1.
func WithMaxSize(n int64) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("blk: WithMaxSize(%d): less than 1", n)
		}
		c.maxSize = n
		return nil
	}
}

// WithLevel sets the zstd level of the compressed kinds (default
// zstd.SpeedBestCompression; the engine uses level 18).
func WithLevel(l zstd.EncoderLevel) Option {
	return func(c *config) error {
		if l < zstd.SpeedFastest || l > zstd.SpeedBestCompression {
			return fmt.Errorf("blk: WithLevel(%d): not a zstd.EncoderLevel", l)
		}
		c.level = l
		return nil
	}
}

// InternStrings adds every string value to the name table, so that all
// strings become name references (what kotiq's writer does for
// section_fat_s.blk). The engine does not do this.
func InternStrings() Option {
	return func(c *config) error { c.internStrings = true; return nil }
}

// PackLikeEngine makes KindSlimZstd and KindSlimZstdDict do what the
// engine's pack_shared_nm_dump_to_stream does: a body under 128 bytes whose
// zstd form is larger than the body is written uncompressed, as KindSlim.
func PackLikeEngine() Option {
	return func(c *config) error { c.packLikeEngine = true; return nil }
}
