package blk

import (
	"runtime"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Decoding and encoding compressed kinds must not leave goroutines behind.
func TestNoGoroutineLeak(t *testing.T) {
	enc := func() ([]byte, error) {
		e := &Encoder{kind: KindFATZstd, level: zstd.SpeedFastest} // a fresh zstd encoder each time
		return e.Encode(sectionTree())
	}
	data, err := enc()
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for i := 0; i < 10; i++ {
		if _, err := Decode(data); err != nil {
			t.Fatal(err)
		}
		if _, err := enc(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Fatalf("%d goroutines before, %d after", before, n)
	}
}
