package bpx

import (
	"context"
	"fmt"
	"runtime"
)

// Compression selects how CreateSection stores a section.
type Compression uint8

const (
	// CompressNone stores the section as written.
	CompressNone Compression = iota
	// CompressZlib stores an RFC 1950 zlib stream (flag 0x01, default
	// level). The reference SDK can neither read nor write zlib sections:
	// use CompressXZ or CompressNone where it must read the file.
	CompressZlib
	// CompressXZ stores a complete .xz stream (flag 0x02): LZMA2 with a
	// dictionary no larger than the section (at most 256 KiB by default,
	// like the reference, or SectionOptions.XZDictSize), integrity check
	// NONE, encoded as SectionOptions.Level says.
	CompressXZ
	// CompressZstd stores a zstd stream (RFC 8878; flag 0x10, window the
	// section's size up to 8 MiB), which decodes several times faster
	// than xz at a somewhat larger size: for games that ship their data.
	// A file with such a section is written as VersionZstd, which the
	// reference SDK and readers of versions 1 and 2 refuse.
	CompressZstd
)

// String returns the method's name: "none", "zlib", "xz" or "zstd".
func (c Compression) String() string {
	switch c {
	case CompressNone:
		return "none"
	case CompressZlib:
		return "zlib"
	case CompressXZ:
		return "xz"
	case CompressZstd:
		return "zstd"
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// Checksum selects the checksum CreateSection stores for a section. Every
// checksum is computed over the uncompressed bytes.
type Checksum uint8

const (
	// ChecksumNone stores no checksum (Checksum field 0, no check flag).
	ChecksumNone Checksum = iota
	// ChecksumWeak stores the sum of all bytes mod 2^32 (flag 0x08).
	ChecksumWeak
	// ChecksumCRC32 stores the reference SDK's CRC32 variant (flag 0x04;
	// see ReferenceCRC32), the one the reference verifies.
	ChecksumCRC32
	// ChecksumStandardCRC32 stores the standard IEEE CRC-32 under the same
	// flag 0x04. This package accepts it, the reference SDK rejects it.
	ChecksumStandardCRC32
)

// String returns the checksum's name: "none", "weak", "crc32" (the
// reference variant) or "crc32-ieee".
func (c Checksum) String() string {
	switch c {
	case ChecksumNone:
		return "none"
	case ChecksumWeak:
		return "weak"
	case ChecksumCRC32:
		return "crc32"
	case ChecksumStandardCRC32:
		return "crc32-ieee"
	}
	return fmt.Sprintf("Checksum(%d)", uint8(c))
}

// DefaultThreshold is the reference SDK's compression threshold: it stores
// a section raw unless it is larger than this many bytes.
const DefaultThreshold = 65536

// Limits of the xz dictionary the writer declares.
const (
	// DefaultXZDictSize is the largest dictionary the writer chooses on
	// its own: 256 KiB, like the reference SDK's preset.
	DefaultXZDictSize = 256 << 10
	// minXZDictSize is the smallest LZMA2 dictionary (4 KiB).
	minXZDictSize = 4 << 10
	// maxXZDictSize bounds XZDictSize: 1.5 GiB, the largest dictionary
	// the xz tools accept.
	maxXZDictSize = 1536 << 20
)

// SectionOptions choose how CreateSection stores a section. The zero value
// stores it raw without a checksum.
type SectionOptions struct {
	// Compression is the method tried for the section.
	Compression Compression
	// Checksum is the checksum stored for the section.
	Checksum Checksum
	// Threshold stores the section raw when its uncompressed size is at
	// most Threshold bytes (the reference uses DefaultThreshold). 0 means
	// always try the compression. Whatever the threshold, a compressed
	// stream that is not smaller than the data is dropped and the section
	// is stored raw (the reference keeps it; both read the same).
	Threshold int
	// XZDictSize overrides the LZMA2 dictionary size of an xz section.
	// 0 chooses the section size, clamped to [4 KiB, DefaultXZDictSize]:
	// a larger dictionary would only cost the reader memory.
	XZDictSize int
	// Level is how hard the compressor works for a smaller section; the
	// zero value is LevelDefault.
	Level Level
	// BlockSize, for an xz section, is the most decoded data one block of
	// its stream holds (see Block); 0 means one block. A reader decodes
	// one block to reach bytes inside it, instead of the section up to
	// them. Each block starts with an empty dictionary, so it compresses
	// as a section of its size would; the dictionary is at most it.
	BlockSize int64

	cuts []int64 // where BlockEnder.EndBlock ended blocks, in decoded bytes
}

// maxBlockSize bounds SectionOptions.BlockSize: a block is decoded into
// memory whole.
const maxBlockSize = 1 << 30

func (o *SectionOptions) validate() error {
	if o.Compression > CompressZstd {
		return fmt.Errorf("%w: compression %v", ErrUnsupported, o.Compression)
	}
	if o.Checksum > ChecksumStandardCRC32 {
		return fmt.Errorf("%w: checksum %v", ErrUnsupported, o.Checksum)
	}
	if o.Level > LevelMax {
		return fmt.Errorf("%w: level %v", ErrUnsupported, o.Level)
	}
	if o.BlockSize != 0 && (o.BlockSize < minXZDictSize || o.BlockSize > maxBlockSize) {
		return fmt.Errorf("%w: xz block size %d outside [%d, %d]", ErrUnsupported, o.BlockSize, minXZDictSize, int64(maxBlockSize))
	}
	if o.XZDictSize != 0 && (o.XZDictSize < minXZDictSize || o.XZDictSize > maxXZDictSize) {
		return fmt.Errorf("%w: xz dictionary size %d outside [%d, %d]", ErrUnsupported, o.XZDictSize, minXZDictSize, maxXZDictSize)
	}
	return nil
}

// checkFlag returns the check flag stored for o.Checksum.
func (o *SectionOptions) checkFlag() uint8 {
	switch o.Checksum {
	case ChecksumWeak:
		return FlagWeak
	case ChecksumCRC32, ChecksumStandardCRC32:
		return FlagCRC32
	}
	return 0
}

// Defaults of the writer's memory use.
const (
	// DefaultSpoolThreshold is the default of WithSpoolThreshold: 8 MiB
	// of one body in memory before it moves to a temporary file.
	DefaultSpoolThreshold = 8 << 20
	// DefaultMemoryLimit is the default of WithMemoryLimit: 64 MiB of
	// finished bodies in memory waiting for Close.
	DefaultMemoryLimit = 64 << 20
)

// WriterOption configures NewWriter (and Rewrite), in the idiom of Option:
// a value outside an option's range makes the Writer fail, with the
// option's error, at the first CreateSection, WriteSection, CopySection or
// Close.
type WriterOption func(*writerConfig) error

type writerConfig struct {
	typ            uint8
	typeExt        [16]byte
	version        uint32
	spoolThreshold int64
	memoryLimit    int64
	tempDir        string
	concurrency    int
	ctx            context.Context // nil: never stops
}

func newWriterConfig(opts []WriterOption) (writerConfig, error) {
	c := writerConfig{
		version:        CurrentVersion,
		spoolThreshold: DefaultSpoolThreshold,
		memoryLimit:    DefaultMemoryLimit,
		concurrency:    runtime.GOMAXPROCS(0),
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// WithVersion sets the main header's Version (default CurrentVersion, 2).
// The layout written is the same for versions 1 and 2, and VersionZstd
// (which a zstd section makes the version anyway: for a file of the zstd
// profile whose sections all ended up raw, and carry the standard
// CRC-32); any other version is an error matching ErrUnsupported.
func WithVersion(v uint32) WriterOption {
	return func(c *writerConfig) error {
		if v != Version1 && v != Version2 && v != VersionZstd {
			return fmt.Errorf("%w: writing version %d (only 1, 2 and VersionZstd)", ErrUnsupported, v)
		}
		c.version = v
		return nil
	}
}

// WithSpoolThreshold sets how many bytes of one section body (as written,
// and again as compressed) are kept in memory before the body moves to a
// temporary file (default DefaultSpoolThreshold). 0 spools every
// non-empty body to disk; n must not be negative.
func WithSpoolThreshold(n int64) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 {
			return optionError("WithSpoolThreshold", n, "negative size")
		}
		c.spoolThreshold = n
		return nil
	}
}

// WithMemoryLimit sets how many bytes of finished in-memory section bodies
// wait in memory for Close (default DefaultMemoryLimit); bodies beyond it
// are appended to one temporary file. 0 keeps none in memory; n must not
// be negative.
func WithMemoryLimit(n int64) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 {
			return optionError("WithMemoryLimit", n, "negative size")
		}
		c.memoryLimit = n
		return nil
	}
}

// WithTempDir sets the directory of the temporary files (default
// os.TempDir()).
func WithTempDir(dir string) WriterOption {
	return func(c *writerConfig) error { c.tempDir = dir; return nil }
}

// WithContext makes the Writer stop once ctx is done (a program that
// was interrupted, say): writing or creating a section then fails, and so
// does Close, with an error wrapping context.Cause(ctx), and Close removes
// the temporary files as after any failure. A compression under way stops
// at its next output (an xz stream writes one at least every 2 MiB of
// input), and once Close has begun writing the container it stops at its
// next write to the underlying writer. ctx must not be nil.
func WithContext(ctx context.Context) WriterOption {
	return func(c *writerConfig) error {
		if ctx == nil {
			return optionError("WithContext", ctx, "nil context")
		}
		c.ctx = ctx
		return nil
	}
}

// WithConcurrency sets how many sections are compressed at the same time
// (default GOMAXPROCS); n must be at least 1. 1 still compresses a
// finished section while the caller writes the next one. Each worker holds
// up to two bodies' worth of WithSpoolThreshold in memory.
func WithConcurrency(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 1 {
			return optionError("WithConcurrency", n, "fewer than 1 worker")
		}
		c.concurrency = n
		return nil
	}
}
