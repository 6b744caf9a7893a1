package explorer

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/gobpx/bpx"
)

// minPreviewCost is the least a preview holds of the budget: what a
// decoder's fixed state (a zlib inflater, a PNG encoder) takes.
const minPreviewCost = 1 << 20

// budget is a weighted semaphore of bytes shared by every preview: a
// preview holds the bytes its decoding may take, waiting in line (first
// come, first served) while others hold too much.
type budget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*budgetWaiter
}

// budgetWaiter is a preview waiting for n bytes; ready is closed when it
// holds them.
type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(size int64) *budget { return &budget{size: size} }

// acquire takes n bytes (at most b.size), waiting until they are free or
// ctx is done.
func (b *budget) acquire(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.size {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.used -= n
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
		}
		b.wake()
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release gives back n bytes.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.wake()
	b.mu.Unlock()
}

// wake grants the waiters at the head of the line that fit; b.mu is held.
func (b *budget) wake() {
	for len(b.waiters) > 0 && b.used+b.waiters[0].n <= b.size {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.used += w.n
		close(w.ready)
	}
}

// held is how many bytes are held now.
func (b *budget) held() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

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
