package sd

import (
	"bytes"
	"runtime"
	"testing"
)

// allocatedBy returns the bytes f allocates, averaged over a few runs to
// dilute allocations made meanwhile by the test framework.
func allocatedBy(f func()) uint64 {
	const runs = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// The documented bound on decoding memory: per input byte, plus a constant.
const (
	maxBytesPerInputByte = 128
	maxBytesConstant     = 1024
)

// TestDecodeMemoryBound decodes worst-case shapes (the most containers and
// values per input byte) and checks the documented memory bound.
func TestDecodeMemoryBound(t *testing.T) {
	emptyArrays := func() []byte { // arrays of 255 empty arrays, 2 bytes each
		inner := bytes.Repeat([]byte{13, 0}, 255)
		var es [][]byte
		for i := 0; i < 255; i++ {
			es = append(es, wentHash(uint64(i), append([]byte{13, 255}, inner...)))
		}
		return wobj(es...)
	}
	nulls := func() []byte { // arrays of 255 nulls, 1 byte each
		var es [][]byte
		for i := 0; i < 255; i++ {
			es = append(es, wentHash(uint64(i), append([]byte{13, 255}, bytes.Repeat([]byte{0}, 255)...)))
		}
		return wobj(es...)
	}
	emptyObjects := func() []byte {
		inner := bytes.Repeat([]byte{14, 0}, 255)
		var es [][]byte
		for i := 0; i < 255; i++ {
			es = append(es, wentHash(uint64(i), append([]byte{13, 255}, inner...)))
		}
		return wobj(es...)
	}
	truncated := func() []byte { // counts of 255 everywhere, then nothing
		return []byte{255, 1, 0, 0, 0, 0, 0, 0, 0, 13, 255, 13, 255, 13, 255, 13, 255}
	}
	for name, mk := range map[string]func() []byte{
		"empty arrays": emptyArrays, "nulls": nulls, "empty objects": emptyObjects, "truncated": truncated,
	} {
		data := mk()
		var err error
		n := allocatedBy(func() { _, err = Decode(data) })
		if name != "truncated" && err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if per := float64(n) / float64(len(data)); n > maxBytesPerInputByte*uint64(len(data))+maxBytesConstant {
			t.Errorf("%s: %d bytes for %d input bytes (%.1f per byte), want <= %d",
				name, n, len(data), per, maxBytesPerInputByte)
		} else {
			t.Logf("%s: %.1f bytes per input byte", name, per)
		}
	}
}
