package explorer

import (
	"net/http"
	"testing"
)

// TestGrantReleasedOnPanic: a handler that panics while it holds a share
// of the preview budget (a decoder's bug on a hostile file; net/http
// recovers the panic and goes on serving) gives its share back. Left
// held, a few such requests would stall every later preview for good.
func TestGrantReleasedOnPanic(t *testing.T) {
	s := gameServer(t)
	s.mux.HandleFunc("GET /api/test-panic", func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.acquire(r, "test", 8<<20); err != nil {
			t.Error(err)
			return
		}
		panic("a decoder's bug")
	})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the handler did not panic")
			}
		}()
		get(t, s, "/api/test-panic")
	}()
	if n := s.budget.held(); n != 0 {
		t.Errorf("%d bytes of the budget held after the handler panicked", n)
	}
}
