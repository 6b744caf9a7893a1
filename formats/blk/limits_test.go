package blk

import (
	"runtime"
	"strings"
	"testing"
)

// memTexts are the texts that cost the most memory per byte: one-byte
// array values (each a param; 1157 of them leave the most unused slice
// capacity of the sizes tried, 60000 make the most garbage growing), and
// blocks as small as text allows.
func memTexts() map[string][]byte {
	return map[string][]byte{
		"empty array values":      []byte(strings.Repeat("b{a:t[]=["+strings.Repeat(";", 60000)+"]}", 20)),
		"1157 empty array values": []byte(strings.Repeat("b{a:t[]=["+strings.Repeat(";", 1157)+"]}", 1000)),
		"int array values":        []byte(strings.Repeat("b{a:i[]=["+strings.Repeat("1;", 30000)+"]}", 20)),
		"empty blocks":            []byte(strings.Repeat("b{"+strings.Repeat("c{}", 20000)+"}", 20)),
		"short params":            []byte(strings.Repeat("b{"+strings.Repeat("a=x\n", 15000)+"}", 20)),
	}
}

// TestParseTextMemory checks the bounds the package doc gives, about 80
// bytes kept and 320 allocated per byte of text, with 10% and 25% margin:
// measured at most 77.2 and 318 on 64-bit platforms (40 and 184 on
// 32-bit) over array sizes from 1000 to 65535.
func TestParseTextMemory(t *testing.T) {
	const memPerByte, allocPerByte = 88, 400
	for name, text := range memTexts() {
		var before, after, live runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := ParseText(text)
		runtime.ReadMemStats(&after)
		runtime.GC()
		runtime.ReadMemStats(&live)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kept := float64(live.HeapAlloc-before.HeapAlloc) / float64(len(text))
		total := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
		t.Logf("%s: %d bytes of text, %.1f bytes kept and %.1f allocated per byte", name, len(text), kept, total)
		if kept > memPerByte || total > allocPerByte {
			t.Errorf("%s: %.1f bytes kept per byte of text (at most %d), %.1f allocated (at most %d)", name, kept, memPerByte, total, allocPerByte)
		}
		runtime.KeepAlive(b)
	}
}
