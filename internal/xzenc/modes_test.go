package xzenc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/internal/xzdec"

	mxz "github.com/mikelolasagasti/xz"
)

// optionSets are the presets and the extremes of Normal mode's
// parameters.
var optionSets = []struct {
	name string
	o    Options
}{
	{"fast", PresetFast},
	{"default", PresetDefault},
	{"max", PresetMax},
	{"hc4-nice8-depth1", Options{Mode: Normal, NiceLen: 8, Depth: 1}},
	{"bt4-nice8-depth1", Options{Mode: Normal, MatchFinder: BT4, NiceLen: 8, Depth: 1}},
	{"bt4-nice273-depth200", Options{Mode: Normal, MatchFinder: BT4, NiceLen: 273, Depth: 200}},
	{"normal-defaults", Options{Mode: Normal}},
}

// edgeInputs adds to the corpus: a run of one byte, long repeats of a
// random block, and more than one LZMA2 chunk (2 MiB) of Go source.
func edgeInputs(t testing.TB) map[string][]byte {
	m := corpus(t)
	rng := rand.New(rand.NewPCG(9, 10))
	block := make([]byte, 5000)
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	m["same"] = bytes.Repeat([]byte{'x'}, 300<<10)
	m["repeats"] = bytes.Repeat(block, 40)
	if !testing.Short() {
		m["source"] = gocorpus.Source(5 << 19)
	}
	return m
}

// decodeAll checks that z decodes to data with this module's decoder, with
// xi2 (holding a dictionary of exactly dict bytes) and with xz(1) when
// installed.
func decodeAll(t *testing.T, z, data []byte, dict int, what string) {
	t.Helper()
	var d xzdec.Decoder
	if got, err := d.Decode(nil, z, len(data)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s: xzdec: %d of %d bytes, %v", what, len(got), len(data), err)
	}
	r, err := mxz.NewReader(bytes.NewReader(z), uint32(dict))
	if err != nil {
		t.Fatalf("%s: xi2: %v", what, err)
	}
	var got bytes.Buffer
	if _, err := got.ReadFrom(r); err != nil || !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("%s: xi2: %d of %d bytes, %v", what, got.Len(), len(data), err)
	}
	if xz, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command(xz, "-d", "-c")
		cmd.Stdin = bytes.NewReader(z)
		if out, err := cmd.Output(); err != nil || !bytes.Equal(out, data) {
			t.Fatalf("%s: xz -d: %d of %d bytes, %v", what, len(out), len(data), err)
		}
	}
}

// TestModesRoundTrip: every option set's streams decode with all three
// decoders, at a small and a large dictionary, with one Encoder reused
// across option sets.
func TestModesRoundTrip(t *testing.T) {
	var e Encoder
	inputs := edgeInputs(t)
	sets := optionSets
	if testing.Short() {
		sets = sets[:3]
	}
	for _, os := range sets {
		for name, data := range inputs {
			for _, dict := range []int{MinDict, 1 << 20} {
				e.Options = os.o
				z := encode(t, &e, data, dict)
				// The 4 KiB dictionary rounds up to 4 KiB, 1 MiB to 1 MiB.
				decodeAll(t, z, data, dict, fmt.Sprintf("%s/%s/%d", os.name, name, dict))
			}
		}
	}
}

// TestModesFarMatch: a repeat at distance exactly the dictionary size
// (0-based dict-1) is found in every mode, and one a byte farther is not
// (the stream decodes with a dictionary of exactly dict bytes).
func TestModesFarMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	const dict = MinDict
	a := rnd(200)
	near := append(append(append([]byte{}, a...), rnd(dict-len(a))...), a...)
	far := append(append(append([]byte{}, a...), rnd(dict-len(a)+1)...), a...)
	var e Encoder
	for _, os := range optionSets {
		e.Options = os.o
		zn, zf := encode(t, &e, near, dict), encode(t, &e, far, dict)
		decodeAll(t, zn, near, dict, os.name+"/near")
		decodeAll(t, zf, far, dict, os.name+"/far")
		if len(zn) > len(zf)-100 {
			t.Errorf("%s: %d bytes with the repeat at the dictionary's reach, %d beyond it", os.name, len(zn), len(zf))
		}
	}
}

// TestModesDeterministic: the same input and options give the same bytes
// from a new Encoder and from one that encoded other data with other
// options before.
func TestModesDeterministic(t *testing.T) {
	data := gocorpus.Source(100 << 10)
	other := corpus(t)["mixed"]
	var used Encoder
	for i, os := range optionSets {
		fresh := Encoder{Options: os.o}
		want := encode(t, &fresh, data, 1<<20)
		for _, prev := range []int{0, 2, 4, i} {
			prev := optionSets[prev]
			used.Options = prev.o
			encode(t, &used, other, 64<<10)
			used.Options = os.o
			if got := encode(t, &used, data, 1<<20); !bytes.Equal(got, want) {
				t.Fatalf("%s after %s: %d bytes, not the %d of a new Encoder", os.name, prev.name, len(got), len(want))
			}
		}
	}
}

// TestModesWriteMatchesEncode: in every mode, Write gives Encode's bytes
// up to the window, in pieces of any size.
func TestModesWriteMatchesEncode(t *testing.T) {
	var e, w Encoder
	inputs := edgeInputs(t)
	for _, os := range optionSets[1:3] {
		e.Options, w.Options = os.o, os.o
		for name, data := range inputs {
			want := encode(t, &e, data, 1<<20)
			for _, c := range []struct {
				hint  int64
				piece int
			}{{int64(len(data)), 1 << 30}, {0, 4093}} {
				if got := writeStream(t, &w, data, 1<<20, c.hint, c.piece); !bytes.Equal(got, want) {
					t.Errorf("%s/%s, hint %d, pieces of %d: %d bytes differ from Encode's %d", os.name, name, c.hint, c.piece, len(got), len(want))
				}
			}
		}
	}
}

// TestModesLongStream: in Normal mode too, a stream longer than the
// window slides it and round-trips, within 0.5% of Encode's size; with a
// 2 MiB dictionary the history (and window) grow to match.
func TestModesLongStream(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 2 x 10 MiB per option set")
	}
	data := longInput(10 << 20)
	for _, c := range []struct {
		o    Options
		dict int
	}{{PresetDefault, 1 << 20}, {PresetMax, 1 << 20}, {PresetMax, 2 << 20}} {
		e := Encoder{Options: c.o}
		z := writeStream(t, &e, data, c.dict, int64(len(data)), 32<<10)
		if cap(e.win) > e.winMax || e.winMax != max(window, 3*min(c.dict, maxReach)) {
			t.Errorf("window of %d bytes, at most %d", cap(e.win), e.winMax)
		}
		if len(e.chain) != 2*c.dict || len(e.head)+len(e.head2)+len(e.head3)+len(e.head4) != 1<<hashBits+1<<16+1<<hash3Bits+1<<hash4Bits {
			t.Errorf("tables of %d + %d + %d + %d + %d entries", len(e.chain), len(e.head), len(e.head2), len(e.head3), len(e.head4))
		}
		what := fmt.Sprintf("%+v/%d", c.o, c.dict)
		decodeAll(t, z, data, c.dict, what)
		whole := encode(t, &e, data, c.dict)
		t.Logf("%s: %d bytes -> %d written, %d encoded whole", what, len(data), len(z), len(whole))
		if len(z) > len(whole)+len(whole)/200 {
			t.Errorf("%s: %d bytes, more than 0.5%% above Encode's %d", what, len(z), len(whole))
		}
	}
}

// TestNormalSmaller: Normal mode is worth its time on Go source in 1 MiB
// sections (measured: PresetDefault 0.899x and PresetMax 0.893x of
// PresetFast's size).
func TestNormalSmaller(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 4 MiB 3 times")
	}
	data := gocorpus.Source(4 << 20)
	size := func(o Options) int {
		e := Encoder{Options: o}
		n := 0
		for p := 0; p < len(data); p += 1 << 20 {
			n += len(encode(t, &e, data[p:p+1<<20], 1<<20))
		}
		return n
	}
	fast, def, mx := size(PresetFast), size(PresetDefault), size(PresetMax)
	t.Logf("fast %d, default %d (%.3f), max %d (%.3f)", fast, def, float64(def)/float64(fast), mx, float64(mx)/float64(fast))
	if def > fast*92/100 {
		t.Errorf("PresetDefault: %d bytes, not 8%% below PresetFast's %d", def, fast)
	}
	if mx > fast*91/100 || mx >= def {
		t.Errorf("PresetMax: %d bytes, not 9%% below PresetFast's %d and below PresetDefault's %d", mx, fast, def)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{
		{Mode: 2},
		{MatchFinder: 2, Mode: Normal},
		{MatchFinder: BT4}, // Fast mode has no tree
		{NiceLen: 7},
		{NiceLen: maxMatchLen + 1, Mode: Normal},
		{Depth: -1},
		{Depth: 1<<16 + 1},
	} {
		if err := o.Validate(); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: Validate: %v", o, err)
		}
		e := Encoder{Options: o}
		if err := e.Encode(&bytes.Buffer{}, []byte("data"), 1<<20); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: Encode: %v", o, err)
		}
		if err := e.Reset(&bytes.Buffer{}, 1<<20, 0); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: Reset: %v", o, err)
		}
	}
	for _, os := range optionSets {
		if err := os.o.Validate(); err != nil {
			t.Errorf("%s: %v", os.name, err)
		}
	}
}

// TestEmitStaleOps: symbols planned for a state that a stored chunk has
// since reset are coded by distance: a rep whose distance left the reps
// becomes a match, a short rep a literal; the stream still decodes.
func TestEmitStaleOps(t *testing.T) {
	data := []byte("abcdefgh-abcdefgh-abcdefgh+abcdefgh")
	e := Encoder{Options: PresetDefault}
	var buf bytes.Buffer
	if err := e.begin(&buf, 1<<20, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	e.data, e.total = data, int64(len(data))
	p := 0
	for _, o := range []op{
		{kind: opLit, len: 1}, {kind: opLit, len: 1}, {kind: opLit, len: 1}, {kind: opLit, len: 1},
		{kind: opLit, len: 1}, {kind: opLit, len: 1}, {kind: opLit, len: 1}, {kind: opLit, len: 1},
		{kind: opLit, len: 1},
		{kind: opRep, len: 9, dist: 8},      // not a rep yet: a match
		{kind: opRep, len: 8, dist: 8},      // now rep0
		{kind: opShortRep, len: 1, dist: 3}, // '+' is no short rep at 4: a literal
		{kind: opShortRep, len: 1, dist: 8}, // 'a' at rep0, a short rep
	} {
		e.emitOp(p, o)
		p += int(o.len)
	}
	e.pos, e.ins = p, p
	if err := e.end(); err != nil {
		t.Fatal(err)
	}
	decodeAll(t, buf.Bytes(), data, 1<<20, "stale ops")
}
