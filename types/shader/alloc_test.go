package shader

import (
	"bytes"
	"runtime"
	"testing"
)

// Symbols that all point at one long name share its bytes: reading 2000 of
// them costs about the file's size, not 2000 copies of the 16 KiB name.
func TestSharedNamesCostNoCopies(t *testing.T) {
	const n = 2000
	name := bytes.Repeat([]byte("n"), 16<<10)
	var tab []byte
	for i := 0; i < n; i++ {
		tab = append(tab, raw(uint32(0), uint32(noExtendedData), uint16(0), uint8(0), uint8(0xFF))...)
	}
	ext := PackTypeExt{NumSymbols: n, Target: TargetAny, Type: TypeAssembly}.Marshal()
	file := container(t, 'S', ext, sec{0xFF, append(name, 0)}, sec{2, tab})
	r := openBytes(t, file)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := ReadPack(r)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Symbols) != n || len(p.Symbols[n-1].Name) != len(name) {
		t.Fatalf("%d symbols", len(p.Symbols))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("ReadPack allocated %d bytes for a %d-byte file", got, len(file))
	}
}
