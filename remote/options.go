package remote

import (
	"fmt"
	"net/http"
	"time"
)

// Default settings of Open. Each can be changed with an Option.
const (
	// DefaultHeadSize is the size of the first request: 192 KiB. Opening
	// a package reads its main header, section table, object table,
	// names and object digests; for a package of the Go 1.26 source tree
	// ($(go env GOROOT)/src, 157 MB in 11.5k files, packed with default
	// options into 25.2 MB) those are the first 173,060 bytes (the tables
	// compressed: 68,824 and 54,936 bytes), which the head covers, so that
	// reading one small file costs two requests, the head and a 64 KiB
	// block (or the file's own bytes). Tables stored raw (the reference's
	// packages, pack.WithRawTables) take more requests: 680,036 bytes
	// there, read in 64 KiB blocks, adjacent missing blocks of one read in
	// one request. Smaller packages come whole in the head; for larger
	// tables, raise it, or give the package a path index.
	DefaultHeadSize = 192 << 10

	// DefaultBlockSize is the unit of the cache and of the requests
	// made for small reads.
	DefaultBlockSize = 64 << 10

	// DefaultCacheSize bounds the bytes of the cached blocks (the head
	// and read-ahead included).
	DefaultCacheSize = 16 << 20

	// DefaultRetries is how many times a request is retried after a
	// transient failure: a 5xx answer (but 501 and 505), a 408 or 429, a
	// failed connection or a body cut short (see WithRetries).
	DefaultRetries = 3

	// MaxRetries is the largest value WithRetries accepts.
	MaxRetries = 10

	// DefaultIdleTimeout is how long the server may stay silent during a
	// request: before its answer's headers, or between two pieces of its
	// body.
	DefaultIdleTimeout = 30 * time.Second

	// DefaultRequestTimeout is the most time the fetch of one range may
	// take, from its first request to its body's last byte, its retries
	// and their waits included. The ranges are the head, a block, a
	// read-ahead window (a quarter of the cache at most) or the bytes of
	// one ReadAt: five minutes is 4 MiB at 14 KB/s; give a longer one
	// to large ReadAt calls over slow links.
	DefaultRequestTimeout = 5 * time.Minute

	// MaxRedirects is the most redirects one request follows.
	MaxRedirects = 10

	// MaxBlockSize is the largest value WithBlockSize accepts.
	MaxBlockSize = 16 << 20

	// MinBlockSize is the smallest value WithBlockSize accepts.
	MinBlockSize = 512
)

// Option configures Open. Options follow the module's idiom: WithX(value)
// for settings, checked when Open applies them; a value outside an
// option's documented range makes Open fail before it sends a request.
type Option func(*config) error

type config struct {
	client  *http.Client
	head    int
	block   int
	cache   int
	retries int
	backoff time.Duration // first retry's delay, doubled on each retry
	idle    time.Duration
	request time.Duration
}

func newConfig(opts []Option) (config, error) {
	c := config{
		client:  defaultClient(),
		head:    DefaultHeadSize,
		block:   DefaultBlockSize,
		cache:   DefaultCacheSize,
		retries: DefaultRetries,
		backoff: 50 * time.Millisecond,
		idle:    DefaultIdleTimeout,
		request: DefaultRequestTimeout,
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	if c.block > c.cache {
		return c, optionError("WithCacheSize", c.cache, fmt.Sprintf("smaller than the block size %d", c.block))
	}
	// The head is cached as whole blocks.
	c.head = (c.head + c.block - 1) / c.block * c.block
	if c.head > c.cache {
		return c, optionError("WithHeadSize", c.head, fmt.Sprintf("larger than the cache size %d", c.cache))
	}
	return c, nil
}

func optionError(option string, value any, want string) error {
	return fmt.Errorf("remote: %s(%v): %s", option, value, want)
}

// WithClient sets the HTTP client that sends the requests (default: one
// like http.DefaultClient, over a copy of http.DefaultTransport that keeps
// 32 idle connections to a host rather than 2, so that requests made at
// once reuse their connections). Its Transport's connections stay the client's:
// File.Close does not close them. c must not be nil. The File uses a copy
// of c whose CheckRedirect applies the package's rules on redirects (see
// the package doc) before c's own CheckRedirect, if any; c's Timeout, if
// set, bounds each request besides the File's timeouts.
func WithClient(c *http.Client) Option {
	return func(cfg *config) error {
		if c == nil {
			return optionError("WithClient", "nil", "nil client")
		}
		cfg.client = c
		return nil
	}
}

// WithHeadSize sets the size of the first request (DefaultHeadSize),
// rounded up to a whole number of blocks. n must be positive and, once
// rounded, not larger than the cache size.
func WithHeadSize(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return optionError("WithHeadSize", n, "not positive")
		}
		c.head = n
		return nil
	}
}

// WithBlockSize sets the cache's block size (DefaultBlockSize), between
// MinBlockSize and MaxBlockSize.
func WithBlockSize(n int) Option {
	return func(c *config) error {
		if n < MinBlockSize || n > MaxBlockSize {
			return optionError("WithBlockSize", n, fmt.Sprintf("outside [%d, %d]", MinBlockSize, MaxBlockSize))
		}
		c.block = n
		return nil
	}
}

// WithCacheSize sets the most bytes the cached blocks may hold
// (DefaultCacheSize). n must be at least the block size.
func WithCacheSize(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return optionError("WithCacheSize", n, "not positive")
		}
		c.cache = n
		return nil
	}
}

// WithRetries sets how many times a request that failed with a 5xx
// status (but 501 and 505), a 408 or 429, a connection error or a body cut
// short is retried (DefaultRetries), between 0 and MaxRetries. Retries
// wait 50 ms, then twice as long each time, or the answer's Retry-After if
// longer. They end early when the context is done, and all of them count
// against the request timeout (WithRequestTimeout): a retry whose wait
// would pass it is not made.
func WithRetries(n int) Option {
	return func(c *config) error {
		if n < 0 || n > MaxRetries {
			return optionError("WithRetries", n, fmt.Sprintf("outside [0, %d]", MaxRetries))
		}
		c.retries = n
		return nil
	}
}

// WithIdleTimeout sets how long the server may stay silent during a
// request (DefaultIdleTimeout): from sending the request to its answer's
// headers, and between two reads of its body that return bytes. A request
// that stays silent longer fails with ErrTimeout and is not retried. d must
// be positive.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return optionError("WithIdleTimeout", d, "not positive")
		}
		c.idle = d
		return nil
	}
}

// WithRequestTimeout sets the most time the fetch of one range may take
// (DefaultRequestTimeout): its requests' headers and bodies, its retries
// and the waits before them. A fetch that takes longer fails with
// ErrTimeout; a server that sends its body a byte at a time, which the
// idle timeout does not catch, fails that way. d must be positive.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return optionError("WithRequestTimeout", d, "not positive")
		}
		c.request = d
		return nil
	}
}
