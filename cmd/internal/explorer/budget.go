package explorer

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/gobpx/bpx"
)

// minPreviewCost is the least a preview holds of the budget: what a
// decoder's fixed state (a zlib inflater, a PNG encoder) takes.
const minPreviewCost = 1 << 20

// budget is the bytes shared by every preview: a weighted semaphore (first
// come, first served) of MaxPreviewBytes, where a preview holds the bytes
// its decoding may take, and a count of what is held, for the tests.
type budget struct {
	sem  *semaphore.Weighted
	used atomic.Int64
}

func newBudget(size int64) *budget { return &budget{sem: semaphore.NewWeighted(size)} }

// acquire takes n bytes (at most the budget's size), waiting until they
// are free or ctx is done.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		return err // Acquire may succeed on a done context
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return err
	}
	b.used.Add(n)
	return nil
}

// release gives back n bytes.
func (b *budget) release(n int64) {
	b.used.Add(-n)
	b.sem.Release(n)
}

// held is how many bytes are held now.
func (b *budget) held() int64 { return b.used.Load() }

// grant is a preview's share of the budget. The zero grant holds nothing.
type grant struct {
	b *budget
	n int64
}

// keep gives back all but n bytes of the grant: a preview that has
// decoded keeps only its answer's bytes while it writes them.
func (g *grant) keep(n int64) {
	if g.b != nil && n < g.n {
		g.b.release(g.n - max(n, 0))
		g.n = max(n, 0)
	}
}

// release gives back the whole grant; later calls do nothing.
func (g *grant) release() { g.keep(0) }

// acquire takes n bytes of the preview budget for the preview of name,
// at least minPreviewCost, waiting while other previews hold too much.
// More than MaxPreviewBytes fails at once with an error matching
// bpx.ErrTooLarge (413); a request that goes away stops waiting with its
// context's error. The caller releases the grant; whatever it holds when
// the handler returns, or panics, is released then (see withGrants).
func (s *Server) acquire(r *http.Request, name string, n int64) (*grant, error) {
	if n < 0 || n > MaxPreviewBytes {
		return nil, fmt.Errorf("%s: the preview needs %d bytes, above the preview limit of %d: %w", name, n, MaxPreviewBytes, bpx.ErrTooLarge)
	}
	n = max(n, minPreviewCost)
	if err := s.budget.acquire(r.Context(), n); err != nil {
		return nil, err
	}
	g := &grant{b: s.budget, n: n}
	if h, _ := r.Context().Value(grantsKey{}).(*requestGrants); h != nil {
		h.gs = append(h.gs, g)
	}
	return g, nil
}

// requestGrants are the grants one request took. A request is served by
// one goroutine, which alone appends to it.
type requestGrants struct{ gs []*grant }

// grantsKey is the context key of a request's *requestGrants.
type grantsKey struct{}

// withGrants returns r with a record of the grants its handler takes, and
// the function that releases what they still hold: ServeHTTP defers it,
// so that a handler that panics (net/http recovers the panic and serves
// on) does not keep its share of the budget for good. Release is
// idempotent: a grant its handler released costs nothing more.
func withGrants(r *http.Request) (*http.Request, func()) {
	h := &requestGrants{}
	return r.WithContext(context.WithValue(r.Context(), grantsKey{}, h)), func() {
		for _, g := range h.gs {
			g.release()
		}
	}
}
