package sd

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
)

// sampleSection returns the bytes of the first section of type typ in the
// shared sample file rel (relative to samples/bpx).
func sampleSection(t *testing.T, rel string, typ uint8) []byte {
	t.Helper()
	r, err := bpx.OpenReader(filepath.Join(samples.Dir(t, "bpx"), rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	defer r.Close()
	s := r.FindSection(typ)
	if s == nil {
		t.Fatalf("%s: no section of type %#x", rel, typ)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatalf("%s: section %d: %v", rel, s.Index, err)
	}
	return data
}

// checkEntries asserts o holds exactly the given hashes and values, in any
// order (the reference writes hash-map order).
func checkEntries(t *testing.T, o *Object, want map[uint64]Value) {
	t.Helper()
	if o.Len() != len(want) {
		t.Errorf("%d properties, want %d", o.Len(), len(want))
	}
	for h, w := range want {
		if got, ok := o.GetHash(h); !ok || !got.Equal(w) {
			t.Errorf("property %#016x = %v (present %v), want %v", h, got, ok, w)
		}
	}
}

func TestSampleAllTypes(t *testing.T) {
	data := sampleSection(t, "reference-generated/sd_alltypes.bpx", bpx.SectionTypeStructuredData)
	o, n, err := decodeConfig{ContainerBudget: ReferenceMaxDepth}.decodePrefix(data)
	if err != nil {
		t.Fatal(err)
	}
	if n != 290 || len(data) != 290 {
		t.Errorf("consumed %d of %d bytes, want 290 of 290", n, len(data))
	}
	names := []string{"null", "bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64",
		"f32", "f64", "str", "arr", "obj"}
	var debugNames []Value
	for _, name := range names {
		debugNames = append(debugNames, String(name))
	}
	want := map[uint64]Value{0x0377beb4dd4088e8: Array(debugNames...)}
	for e := range allTypes().Entries() {
		want[e.Hash] = e.Value
	}
	checkEntries(t, o, want)
	// The __debug__ array names every root key.
	for _, name := range append(names, DebugKey) {
		if got := o.Name(Hash(name)); got != name {
			t.Errorf("name of %q resolved as %q", name, got)
		}
	}
	// Our encoding (insertion order kept) decodes to the same value, and
	// the typed JSON form round-trips it.
	enc, err := Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != len(data) {
		t.Errorf("re-encoded to %d bytes, want %d", len(enc), len(data))
	}
	back, err := Decode(enc)
	if err != nil || !back.Equal(o) {
		t.Errorf("re-encoding changed the value: %v", err)
	}
	typed, err := MarshalTypedJSON(o)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := UnmarshalTypedJSON(typed)
	if err != nil || !fromJSON.Equal(o) {
		t.Errorf("typed JSON round trip: %v\n%s", err, typed)
	}
}

func TestSamplePackageMetadata(t *testing.T) {
	tests := []struct {
		file     string
		consumed int
		size     int
		want     map[uint64]Value
	}{
		{"reference-generated/pkg_meta.bpx", 25, 50, map[uint64]Value{
			Hash("name"): String("sample-package"),
		}},
		{"reference-generated/pkg_meta_multi.bpx", 45, 90, map[uint64]Value{
			Hash("name"):    String("multi"),
			Hash("version"): Uint32(3),
			Hash("tags"):    Array(String("a"), String("b")),
		}},
		{"reference-generated/sdk31_pkg_small.bpx", 16, 16, map[uint64]Value{
			Hash("name"): String("sdk31"),
		}},
		// No __debug__: the names of these keys are unknown.
		{"real/BPX-rs_tests_test.bpx", 103, 206, map[uint64]Value{
			0xc0bfcf3dfad6f4a1: Array(String("level.export"), String("level.post"),
				String("level.delete"), String("level.get"), String("user.get.me")),
			0x001ae79ffe18cd45: String("test"),
			0x001ae738bb233b71: String("test"),
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			data := sampleSection(t, tt.file, bpx.SectionTypeStructuredData)
			if len(data) != tt.size {
				t.Fatalf("section is %d bytes, want %d", len(data), tt.size)
			}
			o, n, err := decodeConfig{ContainerBudget: ReferenceMaxDepth}.decodePrefix(data)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.consumed {
				t.Errorf("consumed %d bytes, want %d", n, tt.consumed)
			}
			checkEntries(t, o, tt.want)
			for e := range o.Entries() {
				if e.Name != "" {
					t.Errorf("name %q resolved without a __debug__ array", e.Name)
				}
			}
		})
	}
}

func TestSampleShaderExtendedData(t *testing.T) {
	// Section 2 (type 3) of shader_pack.bpx is the SD extended data of the
	// symbol "Material": {"size": u32 64}.
	data := sampleSection(t, "reference-generated/shader_pack.bpx", 3)
	var ext struct {
		Size uint32 `sd:"size"`
	}
	if err := Unmarshal(data, &ext); err != nil || ext.Size != 64 {
		t.Errorf("extended data = %+v, %v; want size 64", ext, err)
	}
}

func TestSampleSynthetic(t *testing.T) {
	tests := []struct {
		file string
		opts decodeConfig
		want error // nil: decodes
		off  int64
	}{
		{"sd_bool2.bpx", decodeConfig{}, nil, 0},
		{"sd_bool2.bpx", decodeConfig{StrictBool: true}, ErrBool, 10},
		{"sd_deep.bpx", decodeConfig{}, nil, 0},
		{"sd_deep.bpx", decodeConfig{MaxDepth: 16}, ErrDepth, 160}, // depth 17 starts at 160
		{"sd_deep.bpx", decodeConfig{ContainerBudget: ReferenceMaxDepth}, ErrDepth, 150},
		{"sd_flat_14_arrays.bpx", decodeConfig{ContainerBudget: ReferenceMaxDepth}, nil, 0},
		{"sd_flat_15_arrays.bpx", decodeConfig{ContainerBudget: ReferenceMaxDepth}, ErrDepth, 150},
		{"sd_flat_15_arrays.bpx", decodeConfig{MaxDepth: 2}, nil, 0},
		{"sd_trunc_string.bpx", decodeConfig{}, ErrUnterminated, 10},
		{"sd_bad_typecode.bpx", decodeConfig{}, ErrTypeCode, 9},
	}
	for _, tt := range tests {
		data := sampleSection(t, "synthetic/"+tt.file, bpx.SectionTypeStructuredData)
		o, err := tt.opts.decode(data)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s %+v: %v", tt.file, tt.opts, err)
			}
			continue
		}
		var se *SyntaxError
		if !errors.Is(err, tt.want) || !errors.As(err, &se) || se.Offset != tt.off || o != nil {
			t.Errorf("%s %+v: error %v, want %v at offset %d", tt.file, tt.opts, err, tt.want, tt.off)
		}
	}
	// sd_bool2: a Bool byte 2 reads as false, as in the reference.
	o, _ := Decode(sampleSection(t, "synthetic/sd_bool2.bpx", bpx.SectionTypeStructuredData))
	if v, _ := o.GetHash(1); !v.Equal(Bool(false)) {
		t.Errorf("sd_bool2: %v, want false", v)
	}
}
