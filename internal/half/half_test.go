package half

import (
	"math"
	"testing"
)

func TestToFloat32Values(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.333251953125},
		{0x7bff, 65504},
		{0x0400, 1.0 / (1 << 14)},    // smallest normal
		{0x0001, 1.0 / (1 << 24)},    // smallest subnormal
		{0x03ff, 1023.0 / (1 << 24)}, // largest subnormal
		{0x8001, -1.0 / (1 << 24)},   // negative subnormal
		{0x3bff, 1 - 1.0/(1<<11)},    // just below one
		{0x3c01, 1 + 1.0/(1<<10)},    // just above one
		{0x5640, 100},
	}
	for _, tt := range tests {
		if got := ToFloat32(tt.h); got != tt.want {
			t.Errorf("ToFloat32(%#04x) = %g, want %g", tt.h, got, tt.want)
		}
	}
	if got := ToFloat32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("ToFloat32(0x8000) = %g, want -0", got)
	}
	if got := ToFloat32(PosInf); !math.IsInf(float64(got), 1) {
		t.Errorf("ToFloat32(+Inf) = %g", got)
	}
	if got := ToFloat32(NegInf); !math.IsInf(float64(got), -1) {
		t.Errorf("ToFloat32(-Inf) = %g", got)
	}
	if got := math.Float32bits(ToFloat32(0xfe01)); got != 0xffc02000 {
		t.Errorf("ToFloat32(NaN 0xfe01) bits = %#08x, want 0xffc02000", got)
	}
}

// TestRoundTripAll checks every binary16 pattern survives
// half → float32 → half unchanged, NaN payloads included.
func TestRoundTripAll(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := ToFloat32(h)
		if got := FromFloat32(f); got != h {
			t.Fatalf("FromFloat32(ToFloat32(%#04x)=%g) = %#04x", h, f, got)
		}
		if got := FromFloat32Sat(f); got != h {
			t.Fatalf("FromFloat32Sat(ToFloat32(%#04x)=%g) = %#04x", h, f, got)
		}
		isNaN := h&0x7c00 == 0x7c00 && h&0x3ff != 0
		if isNaN != math.IsNaN(float64(f)) {
			t.Fatalf("%#04x: NaN-ness changed: %g", h, f)
		}
	}
}

// TestRoundNearestEven checks, for every pair of adjacent finite binary16
// values a < b, that their midpoint rounds to the even one and that the
// float32 values just either side of it round to a and b.
func TestRoundNearestEven(t *testing.T) {
	for i := 0; i < 0x7bff; i++ {
		for _, sign := range []uint16{0, 0x8000} {
			ha, hb := uint16(i)|sign, uint16(i+1)|sign
			a, b := ToFloat32(ha), ToFloat32(hb)
			mid := float32((float64(a) + float64(b)) / 2) // exact: needs 12 significant bits
			if float64(mid) != (float64(a)+float64(b))/2 {
				t.Fatalf("midpoint of %#04x,%#04x not exact", ha, hb)
			}
			even := ha
			if ha&1 == 1 {
				even = hb
			}
			if got := FromFloat32(mid); got != even {
				t.Fatalf("tie %g between %#04x and %#04x: got %#04x, want %#04x", mid, ha, hb, got, even)
			}
			if got := FromFloat32(math.Nextafter32(mid, a)); got != ha {
				t.Fatalf("just below midpoint %g: got %#04x, want %#04x", mid, got, ha)
			}
			if got := FromFloat32(math.Nextafter32(mid, b)); got != hb {
				t.Fatalf("just above midpoint %g: got %#04x, want %#04x", mid, got, hb)
			}
		}
	}
}

func TestFromFloat32Edges(t *testing.T) {
	tests := []struct {
		f       float32
		want    uint16
		wantSat uint16
	}{
		{65504, 0x7bff, 0x7bff},
		{65519.99, 0x7bff, 0x7bff}, // below the overflow tie
		{65520, PosInf, MaxHalf},   // the tie rounds to even = overflow
		{1e6, PosInf, MaxHalf},
		{-1e6, NegInf, 0x8000 | MaxHalf},
		{math.MaxFloat32, PosInf, MaxHalf},
		{float32(math.Inf(1)), PosInf, PosInf},
		{float32(math.Inf(-1)), NegInf, NegInf},
		{1.0 / (1 << 25), 0x0000, 0x0000},  // half the smallest subnormal: tie to even (0)
		{1.5 / (1 << 25), 0x0001, 0x0001},  // above that tie
		{3.0 / (1 << 25), 0x0002, 0x0002},  // 1.5 ulp: tie to even (2)
		{-1.0 / (1 << 26), 0x8000, 0x8000}, // underflows to -0
		{math.SmallestNonzeroFloat32, 0, 0},
		{float32(0x3ff+0.5) / (1 << 24), 0x0400, 0x0400}, // largest subnormal tie rounds up to the smallest normal
	}
	for _, tt := range tests {
		if got := FromFloat32(tt.f); got != tt.want {
			t.Errorf("FromFloat32(%g) = %#04x, want %#04x", tt.f, got, tt.want)
		}
		if got := FromFloat32Sat(tt.f); got != tt.wantSat {
			t.Errorf("FromFloat32Sat(%g) = %#04x, want %#04x", tt.f, got, tt.wantSat)
		}
	}
	// A NaN whose payload sits only in the low 13 bits must stay a NaN.
	nan := math.Float32frombits(0x7f800001)
	if got := FromFloat32(nan); got != 0x7e00 {
		t.Errorf("FromFloat32(low-payload NaN) = %#04x, want 0x7e00", got)
	}
	if got := FromFloat32(math.Float32frombits(0xffc00000)); got != 0xfe00 {
		t.Errorf("FromFloat32(-qNaN) = %#04x, want 0xfe00", got)
	}
}

func BenchmarkToFloat32(b *testing.B) {
	var s float32
	for i := 0; i < b.N; i++ {
		s += ToFloat32(uint16(i))
	}
	_ = s
}

func BenchmarkFromFloat32(b *testing.B) {
	var s uint16
	for i := 0; i < b.N; i++ {
		s += FromFloat32(float32(i) * 0.001)
	}
	_ = s
}
