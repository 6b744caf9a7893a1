package bpx

import (
	"fmt"
	"math"
)

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

// ReferenceMaxSections is the most sections a file may have for the
// reference SDK to open it through a buffered reader, the usual way Rust
// programs read a file: its read_fill counts only the last read, so the
// first section header that crosses the edge of BufReader's 8 KiB buffer
// reads as truncated. The main header takes 40 bytes and each section
// header 24, so header 339 (the 340th, bytes 8176 to 8200) is the first
// to cross it. Reading a File directly does not trigger it. The package
// writers of this module stay within this limit by default.
const ReferenceMaxSections = (8192 - MainHeaderSize) / SectionHeaderSize

// Option configures NewReader and OpenReader. Options follow one idiom
// across this module: functional options named WithX(value) for settings
// and a verb phrase for switches, checked when the call applies them; a
// value outside an option's documented range makes that call fail before
// it reads anything.
type Option func(*config) error

type config struct {
	maxSections    int
	maxSectionSize int64
	maxXZDict      uint32
	skipChecksums  bool
	anyVersion     bool
	ignoreUSize    bool
}

func newConfig(opts []Option) (config, error) {
	c := config{
		maxSections:    DefaultMaxSections,
		maxSectionSize: DefaultMaxSectionSize,
		maxXZDict:      DefaultMaxXZDictionary,
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// optionError returns the error of an option given a value outside its
// range.
func optionError(option string, value any, want string) error {
	return fmt.Errorf("bpx: %s(%v): %s", option, value, want)
}

// WithMaxSections sets the largest section count accepted (ErrTooLarge
// above it). n must not be negative.
func WithMaxSections(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return optionError("WithMaxSections", n, "negative count")
		}
		c.maxSections = n
		return nil
	}
}

// WithMaxSectionSize sets the largest uncompressed size a section may have
// (or, with IgnoreUSize, decode to) before reading it fails with
// ErrTooLarge. n must not be negative.
func WithMaxSectionSize(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return optionError("WithMaxSectionSize", n, "negative size")
		}
		c.maxSectionSize = n
		return nil
	}
}

// WithMaxXZDictionary sets the largest LZMA2 dictionary an xz section may
// declare; a larger one fails with ErrTooLarge before anything is
// allocated for it.
func WithMaxXZDictionary(n uint32) Option {
	return func(c *config) error { c.maxXZDict = n; return nil }
}

// SkipChecksums disables every checksum check: the header checksum at open
// and the section checksums while reading (like the reference SDK's
// skip_checksum option).
func SkipChecksums() Option { return func(c *config) error { c.skipChecksums = true; return nil } }

// AllowAnyVersion makes NewReader read a container whose Version is not 1
// or 2 with the version 1/2 layout instead of failing with ErrUnsupported.
func AllowAnyVersion() Option { return func(c *config) error { c.anyVersion = true; return nil } }

// IgnoreUSize makes compressed sections decode to whatever their stream
// holds, as the reference SDK does, instead of failing when the output is
// longer or shorter than the header's USize. Output stays bounded by
// WithMaxSectionSize.
func IgnoreUSize() Option { return func(c *config) error { c.ignoreUSize = true; return nil } }
