package pull

import (
	"context"
	"fmt"
	"time"

	"github.com/gobpx/bpx/sign"
)

// Limits and defaults of a pull.
const (
	// MaxDigestsSize is the largest SectionChunkDigests a pull reads: 40
	// MiB, over a million chunks.
	MaxDigestsSize = 40 << 20
	// MaxRequest is the most bytes one request asks for: longer runs of
	// missing bytes are fetched in several.
	MaxRequest = 4 << 20
	// MaxChunk is the largest chunk size a pull accepts.
	MaxChunk = 64 << 20
	// DefaultConcurrency is how many requests are in flight at once.
	DefaultConcurrency = 4
	// DefaultMinRate is the least average rate, in bytes a second, at
	// which a pull fetches what it needs (see WithMinRate).
	DefaultMinRate = 16 << 10
)

// minRateGrace is the time a pull's fetch has beyond what WithMinRate's
// rate gives it (a variable for tests).
var minRateGrace = time.Minute

// maxRequest is MaxRequest, lowered by tests.
var maxRequest int64 = MaxRequest

// Option configures Pull. Options follow the module's idiom: WithX(value),
// checked when Pull applies them.
type Option func(*config) error

type config struct {
	seeds       []string
	trusted     *sign.KeyRing
	concurrency int
	minRate     int64
	rangesOnly  bool
	progress    func(Progress)
}

func newConfig(opts []Option) (config, error) {
	c := config{concurrency: DefaultConcurrency, minRate: DefaultMinRate}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// WithSeeds names more local files to take chunks from besides the file
// being updated: other versions of the package, or other packages that
// may share files with it. A seed that cannot be read is skipped.
func WithSeeds(paths ...string) Option {
	return func(c *config) error { c.seeds = append(c.seeds, paths...); return nil }
}

// WithTrustedKeys makes Pull accept only a package signed by a key of
// trusted (see package sign): the complete file is checked, every byte,
// against its signature before it replaces the local file, and an
// unsigned or untrusted package fails the pull with an error matching
// bpx.ErrSignature. trusted must not be nil.
func WithTrustedKeys(trusted *sign.KeyRing) Option {
	return func(c *config) error {
		if trusted == nil {
			return fmt.Errorf("pull: WithTrustedKeys(nil): nil key ring")
		}
		c.trusted = trusted
		return nil
	}
}

// WithConcurrency sets how many requests are in flight at once
// (DefaultConcurrency), between 1 and 32.
func WithConcurrency(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 32 {
			return fmt.Errorf("pull: WithConcurrency(%d): outside [1, 32]", n)
		}
		c.concurrency = n
		return nil
	}
}

// WithMinRate bounds how long a pull fetches: the bytes it must fetch
// at rate bytes a second (DefaultMinRate), and a minute more. A server
// slower than that on average, one that sends a byte now and then to
// keep every request alive say, fails the pull then, with an error
// matching context.DeadlineExceeded; requests in flight are cut (those
// of PullURL; a Source's ReadAt is waited for) and LOCAL.part keeps what
// arrived, for the next pull. 0 sets no bound beyond the requests' own
// timeouts; rate must not be negative.
func WithMinRate(rate int64) Option {
	return func(c *config) error {
		if rate < 0 {
			return fmt.Errorf("pull: WithMinRate(%d): negative", rate)
		}
		c.minRate = rate
		return nil
	}
}

// WithRangesOnly makes PullURL fail (with remote.ErrNoRange) when the
// server answers range requests with the whole file, instead of
// downloading it whole: for a caller that would rather not download all
// of a large package for a small update.
func WithRangesOnly() Option {
	return func(c *config) error { c.rangesOnly = true; return nil }
}

// fetchLimit returns how long fetching n bytes may take (WithMinRate; 0:
// no bound) and the error of a fetch that takes longer, which matches
// context.DeadlineExceeded; what says what the fetch is ("fetching").
func (c *config) fetchLimit(what string, n int64) (time.Duration, error) {
	if c.minRate <= 0 {
		return 0, nil
	}
	limit := minRateGrace + time.Duration(float64(n)/float64(c.minRate)*float64(time.Second))
	return limit, fmt.Errorf("pull: %s %d bytes took longer than %v, at %d bytes a second and %v more (WithMinRate): %w",
		what, n, limit.Round(time.Millisecond), c.minRate, minRateGrace, context.DeadlineExceeded)
}

// Progress is what a pull has done so far, as WithProgress reports it.
type Progress struct {
	Phase string // "scan" (reading local files) or "fetch"
	Done  int64  // bytes of the phase done
	Total int64  // bytes of the phase
}

// WithProgress makes Pull call fn as it goes, from one goroutine at a
// time, at most every megabyte or so.
func WithProgress(fn func(Progress)) Option {
	return func(c *config) error { c.progress = fn; return nil }
}
