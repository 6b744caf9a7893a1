// Package leakcheck lets tests check that the calls they make leave no
// goroutine running, as users running go.uber.org/goleak expect of a
// library.
package leakcheck

import (
	"runtime"
	"testing"
	"time"
)

// Check records the number of goroutines now and registers a cleanup that
// fails t if more are running when the test ends. A goroutine that has
// signalled its end may take a moment to exit, so the count is polled for
// up to two seconds before failing with every goroutine's stack. Tests
// using Check must not run in parallel with others.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines running after the test, %d before:\n%s", runtime.NumGoroutine(), before, buf)
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}
