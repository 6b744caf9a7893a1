package bpx

import "math"

// Default limits applied by NewReader. Each can be changed with an Option.
const (
	// DefaultMaxSections is the largest section count NewReader accepts.
	// The table must also fit in the file, so the table allocation is
	// bounded by the file size as well.
	DefaultMaxSections = 1 << 22

	// DefaultMaxSectionSize is the largest uncompressed section size
	// accepted: every size a BPX section header can express (4 GiB - 1).
	DefaultMaxSectionSize = math.MaxUint32

	// DefaultMaxXZDictionary is the largest LZMA2 dictionary an xz stream
	// may declare (64 MiB, what xz -9 uses). The decoder allocates the
	// declared dictionary, so this bounds memory per concurrently open
	// xz section. The reference writer declares 256 KiB.
	DefaultMaxXZDictionary = 64 << 20
)

// Option configures NewReader and OpenReader.
type Option func(*config)

type config struct {
	maxSections    int
	maxSectionSize int64
	maxXZDict      uint32
	skipChecksums  bool
	anyVersion     bool
	ignoreUSize    bool
}

func newConfig(opts []Option) config {
	c := config{
		maxSections:    DefaultMaxSections,
		maxSectionSize: DefaultMaxSectionSize,
		maxXZDict:      DefaultMaxXZDictionary,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithMaxSections sets the largest section count accepted (ErrTooLarge
// above it).
func WithMaxSections(n int) Option { return func(c *config) { c.maxSections = n } }

// WithMaxSectionSize sets the largest uncompressed size a section may have
// (or, with IgnoreUSize, decode to) before reading it fails with ErrTooLarge.
func WithMaxSectionSize(n int64) Option { return func(c *config) { c.maxSectionSize = n } }

// WithMaxXZDictionary sets the largest LZMA2 dictionary an xz section may
// declare; a larger one fails with ErrTooLarge before anything is
// allocated for it.
func WithMaxXZDictionary(n uint32) Option { return func(c *config) { c.maxXZDict = n } }

// SkipChecksums disables every checksum check: the header checksum at open
// and the section checksums while reading (like the reference SDK's
// skip_checksum option).
func SkipChecksums() Option { return func(c *config) { c.skipChecksums = true } }

// AllowAnyVersion makes NewReader read a container whose Version is not 1
// or 2 with the version 1/2 layout instead of failing with ErrUnsupported.
func AllowAnyVersion() Option { return func(c *config) { c.anyVersion = true } }

// IgnoreUSize makes compressed sections decode to whatever their stream
// holds, as the reference SDK does, instead of failing when the output is
// longer or shorter than the header's USize. Output stays bounded by
// WithMaxSectionSize.
func IgnoreUSize() Option { return func(c *config) { c.ignoreUSize = true } }
