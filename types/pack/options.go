package pack

import "github.com/gobpx/bpx"

// DefaultCacheSize is the default budget of the cache of decompressed
// sections that a Package keeps (see WithCacheSize).
const DefaultCacheSize = 16 << 20

// DefaultMaxObjects is the largest object count a package may declare
// (see WithMaxObjects). Each object costs 64 bytes of memory plus
// its name.
const DefaultMaxObjects = 1 << 24

// Option configures Open, NewReader and New.
type Option func(*config)

type config struct {
	cacheSize     int64
	maxObjects    int
	ignoreTypeExt bool
	bpxOpts       []bpx.Option
}

func newConfig(opts []Option) config {
	c := config{cacheSize: DefaultCacheSize, maxObjects: DefaultMaxObjects}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithCacheSize sets how many bytes of decompressed sections a Package keeps
// for reuse (default DefaultCacheSize). Reading every object of a package,
// in any order, then costs about one decompression per section as long as
// the cache holds the sections in use. A section larger than a quarter of
// the cache is never cached: readers stream it instead. 0 disables the cache.
func WithCacheSize(n int64) Option {
	return func(c *config) {
		if n < 0 {
			n = 0
		}
		c.cacheSize = n
	}
}

// WithMaxObjects sets the largest number of objects a package may have;
// opening a larger one fails with bpx.ErrTooLarge.
func WithMaxObjects(n int) Option {
	return func(c *config) { c.maxObjects = n }
}

// IgnoreTypeExt opens a package whose TypeExt names an unknown architecture
// or platform, which Open otherwise refuses as the reference SDK does.
func IgnoreTypeExt() Option {
	return func(c *config) { c.ignoreTypeExt = true }
}

// WithReaderOptions passes options to bpx.NewReader (checksums, limits)
// when Open or NewReader opens the container.
func WithReaderOptions(opts ...bpx.Option) Option {
	return func(c *config) { c.bpxOpts = append(c.bpxOpts, opts...) }
}
