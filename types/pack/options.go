package pack

import (
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// DefaultCacheSize is the default budget of the cache of decompressed
// sections that a Package keeps (see WithCacheSize).
const DefaultCacheSize = 16 << 20

// DefaultMaxObjects is the largest object count a package may declare
// (see WithMaxObjects). Each object costs 64 bytes of memory plus
// its name.
const DefaultMaxObjects = 1 << 24

// Option configures Open, NewReader and New. Options follow the root
// package's idiom (see bpx.Option): WithX(value) for settings, a verb phrase
// for switches, each checked when the call applies it; a value outside an
// option's range makes the call fail before it reads anything.
type Option func(*config) error

type config struct {
	cacheSize     int64
	maxObjects    int
	ignoreTypeExt bool
	maxPathLen    int // 0: no limit
	skipNames     bool
	bpxOpts       []bpx.Option
	trusted       *sign.KeyRing // nil: no signature needed
	remote        bool          // the file is read over a network (see tableReadSize)
}

func newConfig(opts []Option) (config, error) {
	c := config{cacheSize: DefaultCacheSize, maxObjects: DefaultMaxObjects}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// WithCacheSize sets how many bytes of decompressed sections a Package keeps
// for reuse (default DefaultCacheSize). Reading every object of a package,
// in any order, then costs about one decompression per section as long as
// the cache holds the sections in use. A section larger than a quarter of
// the cache is never cached: readers stream it instead. 0 disables the
// cache; n must not be negative.
func WithCacheSize(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return optionError("WithCacheSize", n, "negative size")
		}
		c.cacheSize = n
		return nil
	}
}

// WithMaxObjects sets the largest number of objects a package may have;
// opening a larger one fails with bpx.ErrTooLarge. n must not be negative.
func WithMaxObjects(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return optionError("WithMaxObjects", n, "negative count")
		}
		c.maxObjects = n
		return nil
	}
}

// WithMaxPathLength leaves objects whose names are longer than n bytes
// out of the fs.FS view, as it leaves out names that are not valid paths:
// InvalidPaths lists them, and they stay available through Objects,
// OpenObject and ReadObject. Programs that show the tree to people (an
// explorer) use it, so that a hostile name of megabytes is never a path
// of the tree. By default names of any length are paths. n must be
// positive.
func WithMaxPathLength(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return optionError("WithMaxPathLength", n, "not positive")
		}
		c.maxPathLen = n
		return nil
	}
}

// IgnoreTypeExt opens a package whose TypeExt names an unknown architecture
// or platform, which Open otherwise refuses as the reference SDK does.
func IgnoreTypeExt() Option {
	return func(c *config) error { c.ignoreTypeExt = true; return nil }
}

// SkipNames opens a package without reading its strings section, which
// can decode to 4 GiB: every Object's Name is "" and its NameErr nil, so
// the fs.FS methods find no object (OpenObject still reads them all). For
// callers that need the object table only, such as counting the objects or
// DeadBytes ("bpx info").
func SkipNames() Option {
	return func(c *config) error { c.skipNames = true; return nil }
}

// WithReaderOptions passes options to bpx.NewReader (checksums, limits)
// when Open or NewReader opens the container.
func WithReaderOptions(opts ...bpx.Option) Option {
	return func(c *config) error { c.bpxOpts = append(c.bpxOpts, opts...); return nil }
}

// optionError returns the error of an option given a value outside its
// range.
func optionError(option string, value any, want string) error {
	return fmt.Errorf("pack: %s(%v): %s", option, value, want)
}
