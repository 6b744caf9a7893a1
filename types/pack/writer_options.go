package pack

import (
	"context"
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// WriterOption configures NewWriter. Like the options of Open and of the
// root package, it is checked when NewWriter applies it: a value outside
// its range makes the Writer fail with the option's error.
type WriterOption func(*writerConfig) error

type writerConfig struct {
	compression       bpx.Compression
	checksum          bpx.Checksum
	checksumSet       bool  // by WithChecksum
	sectionSize       int64 // 0 until resolved: DefaultSectionSize, or MaxLevelSectionSize at bpx.LevelMax
	blockSize         int64 // -1 until resolved: DefaultSectionSize, or MaxLevelSectionSize at bpx.LevelMax; 0: one block
	level             bpx.Level
	rawTables         bool // WithRawTables
	metadataNames     bool
	allowInvalidNames bool
	concurrency       int // 0: the root writer's default
	tempDir           string
	memoryLimit       int64
	maxSections       int // 0: no limit
	addProgress       func(name string, n int64)
	ctx               context.Context // nil: never stops
	signKeys          []*sign.PrivateKey
	compressAll       bool // no stored sections: every object is compressed (tests of other things)
	pathIndex         int8 // 1: always, -1: never, 0: above PathIndexThreshold
	chunkDigests      int8 // 1: always, -1: never, 0: from ChunkDigestsThreshold
	stable            bool // content-defined section ends (WithStableSections)
}

// defaultWriterMemoryLimit is the default of WithMemoryLimit.
const defaultWriterMemoryLimit = 4 << 20

func newWriterConfig(opts []WriterOption) (writerConfig, error) {
	c := writerConfig{
		blockSize:   -1,
		compression: bpx.CompressXZ,
		checksum:    bpx.ChecksumCRC32,
		memoryLimit: defaultWriterMemoryLimit,
		maxSections: bpx.ReferenceMaxSections,
	}
	var err error
	for _, o := range opts {
		if err = o(&c); err != nil {
			break
		}
	}
	if c.sectionSize == 0 {
		c.sectionSize = DefaultSectionSize
		if c.level == bpx.LevelMax {
			c.sectionSize = MaxLevelSectionSize
		}
	}
	if c.blockSize < 0 {
		c.blockSize = DefaultSectionSize
		if c.level == bpx.LevelMax {
			c.blockSize = MaxLevelSectionSize
		}
	}
	if err == nil {
		err = c.checkSigning()
	}
	return c, err
}

// MaxLevelSectionSize is the default section size at bpx.LevelMax: larger
// sections give the xz dictionary more to refer back to, for a slower
// first read of a small object.
const MaxLevelSectionSize = 4 << 20

// WithLevel sets how hard the data sections are compressed (default
// bpx.LevelDefault; bpx.Level has the trade-offs per section).
// bpx.LevelMax is for the package players download: it also makes the
// default section size MaxLevelSectionSize and compresses the tables
// (CompressTables), and holds up to 45.5 MiB per compressing goroutine.
// bpx pack of the Go source tree (xz, bench/pack-vs-zip.sh), against
// zip -6 of the same tree:
//
//	level    package size   pack CPU time (vs default)
//	fast     0.71x zip      0.6x
//	default  0.69x zip      1x
//	max      0.58x zip      about 9x
//
// Reading is as fast at every level, but that at LevelMax the first read
// of an object decodes up to 4 MiB of its section rather than 1 MiB.
func WithLevel(l bpx.Level) WriterOption {
	return func(cfg *writerConfig) error {
		if l > bpx.LevelMax {
			return fmt.Errorf("%w: pack: WithLevel(%v)", bpx.ErrUnsupported, l)
		}
		cfg.level = l
		return nil
	}
}

// WithCompression sets how data sections are stored (default
// bpx.CompressXZ, which every BPX implementation reads, the reference SDK
// included). bpx.CompressZlib packs and unpacks several times faster into
// a larger package (see bench/pack-vs-zip.sh), but the reference SDK cannot
// read zlib sections. bpx.CompressNone suits payloads that are already
// compressed (PNG, Ogg, BCn textures) and gives the fastest access.
// bpx.CompressZstd is the profile for shipping a game: a package somewhat
// larger than with xz whose files decode several times faster (see the
// README's load-time tables), which only this module reads: it is
// written as container version bpx.VersionZstd, which the reference SDK
// refuses. The tables use the same method.
func WithCompression(c bpx.Compression) WriterOption {
	return func(cfg *writerConfig) error {
		if c > bpx.CompressZstd {
			return fmt.Errorf("%w: pack: WithCompression(%v)", bpx.ErrUnsupported, c)
		}
		cfg.compression = c
		return nil
	}
}

// WithChecksum sets the checksum of the data sections (default
// bpx.ChecksumCRC32, the reference SDK's variant, which it verifies; with
// bpx.CompressZstd, whose packages the reference cannot read, the
// standard CRC-32, which this module computes several times faster).
// bpx.ChecksumNone stores none.
func WithChecksum(c bpx.Checksum) WriterOption {
	return func(cfg *writerConfig) error {
		if c > bpx.ChecksumStandardCRC32 {
			return fmt.Errorf("%w: pack: WithChecksum(%v)", bpx.ErrUnsupported, c)
		}
		cfg.checksum, cfg.checksumSet = c, true
		return nil
	}
}

// crc32 returns the CRC32 variant of the package's sections: the
// reference's, but for zstd packages without WithChecksum.
func (c *writerConfig) crc32() bpx.Checksum {
	if c.compression == bpx.CompressZstd && !c.checksumSet {
		return bpx.ChecksumStandardCRC32
	}
	return bpx.ChecksumCRC32
}

// dataChecksum returns the checksum of the data sections.
func (c *writerConfig) dataChecksum() bpx.Checksum {
	if c.checksum == bpx.ChecksumCRC32 {
		return c.crc32()
	}
	return c.checksum
}

// WithSectionSize sets the target size of a data section (default
// DefaultSectionSize, or MaxLevelSectionSize at bpx.LevelMax), between 1 byte and 4 GiB - 1. Objects of known size
// at least this large start a section of their own, and every object
// continues into new sections as they fill.
func WithSectionSize(n int64) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 1 || n > bpx.DefaultMaxSectionSize {
			return optionError("WithSectionSize", n, fmt.Sprintf("outside [1, %d]", int64(bpx.DefaultMaxSectionSize)))
		}
		cfg.sectionSize = n
		return nil
	}
}

// WithBlockSize sets the most data one block of a compressed data section
// holds, when sections are larger than that (default DefaultSectionSize,
// or MaxLevelSectionSize at bpx.LevelMax: the size a section has by
// default). A package of more than about 336 MiB gets larger sections to
// stay within the section limit (see WithMaxSections), and an xz section
// is then written as blocks that decode on their own (bpx.Block): reading
// an object decodes the blocks that hold it, not its section up to it.
// Each block compresses as a section of its size would. 0 writes every
// section as one block, as packages were written before blocks existed;
// otherwise n is between 4 KiB and 1 GiB.
func WithBlockSize(n int64) WriterOption {
	return func(cfg *writerConfig) error {
		if n != 0 && (n < 4<<10 || n > 1<<30) {
			return optionError("WithBlockSize", n, "not 0 and outside [4 KiB, 1 GiB]")
		}
		cfg.blockSize = n
		return nil
	}
}

// WithMaxSections sets the most sections a package written or edited may
// have (default bpx.ReferenceMaxSections, the most the reference SDK reads
// through a buffered reader); 0 lifts the limit, for readers that do not
// need it (this module's read any number). n must be 0 or at least 4
// (the tables, the metadata and one data section); with WithSigningKey,
// which keeps one of the n for the signature section, at least 5. See
// Writer for how the writers keep within it and what it costs.
func WithMaxSections(n int) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 0 || (n > 0 && n < 4) {
			return optionError("WithMaxSections", n, "neither 0 nor at least 4")
		}
		cfg.maxSections = n
		return nil
	}
}

// WithStableSections ends data sections where the objects say, not where
// they fill up: after an object whose path hashes below a threshold that
// grows with its size (so that sections hold about half the section size
// on average, and none less than an eighth of it), as well as before an
// object that does not fit; the same rule at a smaller scale ends the xz
// blocks of compressed sections (about 128 KiB each). Two packages of
// trees that differ by a small change then share every section and block
// that holds none of it, byte for byte, and a pull between them (package
// pull) downloads little more than the changed files: for SuperTuxKart's
// data with 20 files changed, 100 added and 10 removed, 1.46 times their
// stored size, against 1.69 times without (bench/pull.sh). Smaller
// sections and blocks cost compression: +0.2% on that game's data, +7% on
// Go source. Off by default.
func WithStableSections() WriterOption {
	return func(cfg *writerConfig) error { cfg.stable = true; return nil }
}

// WithPathIndex says whether the package gets a path index (see
// SectionPathIndex), which lets a reader open one file without reading the
// object table and the strings. By default it gets one when those exceed
// PathIndexThreshold.
func WithPathIndex(on bool) WriterOption {
	return func(cfg *writerConfig) error {
		cfg.pathIndex = -1
		if on {
			cfg.pathIndex = 1
		}
		return nil
	}
}

// wantIndex reports whether a package whose object table and strings take
// n bytes gets a path index.
func (c *writerConfig) wantIndex(n int) bool {
	return c.pathIndex > 0 || c.pathIndex == 0 && n > PathIndexThreshold
}

// CompressTables compresses the object table and strings sections when
// they exceed 64 KiB.
//
// Deprecated: the Writer and the Editor do so by default; WithRawTables
// stores them raw.
func CompressTables() WriterOption {
	return func(cfg *writerConfig) error { cfg.rawTables = false; return nil }
}

// WithRawTables stores the object table and strings raw, as the reference
// does, instead of compressing each that exceeds 64 KiB with the data
// sections' method. Opening a package then reads them without decoding
// them: for the 11,500 files of Go's source tree, 1.8 ms instead of 4.3 ms
// (archive/zip takes 21 ms), for a package 2% larger whose head a remote
// reader fetches in 0.68 MB instead of 0.17 MB. A package with a path index
// (see SectionPathIndex) has raw tables whatever the options: an index
// entry is checked against its table row, read in place.
func WithRawTables() WriterOption {
	return func(cfg *writerConfig) error { cfg.rawTables = true; return nil }
}

// WithMetadataNames writes the metadata's key names in a __debug__ array
// (spec rev 2 §10.2.5), so that tools can show them; the reference writes
// none, and hashes alone identify the keys.
func WithMetadataNames() WriterOption {
	return func(cfg *writerConfig) error { cfg.metadataNames = true; return nil }
}

// AllowInvalidNames accepts object names that are not valid fs paths (and
// duplicates), which readers then refuse to unpack. For tests and for
// faithful copies of foreign packages.
func AllowInvalidNames() WriterOption {
	return func(cfg *writerConfig) error { cfg.allowInvalidNames = true; return nil }
}

// WithConcurrency sets how many data sections are compressed at the same
// time (default GOMAXPROCS); n must be at least 1.
func WithConcurrency(n int) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 1 {
			return optionError("WithConcurrency", n, "fewer than 1 worker")
		}
		cfg.concurrency = n
		return nil
	}
}

// WithTempDir sets the directory of the temporary files (default
// os.TempDir()).
func WithTempDir(dir string) WriterOption {
	return func(cfg *writerConfig) error { cfg.tempDir = dir; return nil }
}

// WithContext makes the Writer, or the Editor, stop once ctx is done (a
// program that was interrupted, say): what it writes then fails with an
// error wrapping context.Cause(ctx), and so does Close, which removes the
// temporary files as after any failure (see bpx.WithContext). EditFile
// then leaves the package as it was. ctx must not be nil.
func WithContext(ctx context.Context) WriterOption {
	return func(cfg *writerConfig) error {
		if ctx == nil {
			return optionError("WithContext", ctx, "nil context")
		}
		cfg.ctx = ctx
		return nil
	}
}

// WithMemoryLimit bounds the bytes of compressed sections kept in memory
// until Close (default 4 MiB); the rest waits in a temporary file. 0 keeps
// none in memory; n must not be negative.
func WithMemoryLimit(n int64) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 0 {
			return optionError("WithMemoryLimit", n, "negative size")
		}
		cfg.memoryLimit = n
		return nil
	}
}

// WithAddProgress makes AddFS report its progress: f is called with a
// file's name and the number of its bytes added since the last call, as
// they are copied (for a file stored as a copy of an earlier one, its
// whole size at once). The calls add up to the total size of the files;
// the rare second read of a large file that may be a copy (see AddFS) is
// not reported.
func WithAddProgress(f func(name string, n int64)) WriterOption {
	return func(cfg *writerConfig) error { cfg.addProgress = f; return nil }
}
