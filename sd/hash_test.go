package sd

import "testing"

// Vectors from the implementers' notes §8.2 and the MANIFEST of the samples.
func TestHash(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		{"", 0x0000000000001505},
		{"name", 0x000000017C9B0C46},
		{"tags", 0x000000017C9E55D4},
		{"size", 0x000000017C9DEDE0},
		{"obj", 0x000000000B889820},
		{"version", 0x0000D0B773006C4B},
		{"__debug__", 0x0377BEB4DD4088E8},
		{"x", 177693},
		{"u16", 0x000000000b88ab21},
		{"i8", 0x0000000000597806},
		// Bytes are unsigned: "é" is C3 A9.
		{"é", (5381*33+0xC3)*33 + 0xA9},
		// Wraps modulo 2^64.
		{"a-rather-long-property-name", 0xde05632014712736}, // computed independently in Python
	}
	for _, tt := range tests {
		if got := Hash(tt.name); got != tt.want {
			t.Errorf("Hash(%q) = %#x, want %#x", tt.name, got, tt.want)
		}
	}
	if Hash(DebugKey) != debugHash {
		t.Errorf("debugHash constant is wrong")
	}
}
