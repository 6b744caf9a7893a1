package blk

import (
	"bytes"
	"math"
	"testing"
)

func TestWriteJSONGolden(t *testing.T) {
	for _, merge := range []bool{false, true} {
		tree, golden := sectionTree(), "expected.json"
		if merge {
			tree.Add("int", Int(420)) // as wt_blk's streaming_merge test does
			golden = "expected_merged.json"
		}
		var buf bytes.Buffer
		var opts []JSONOption
		if merge {
			opts = append(opts, MergeDuplicates())
		}
		if err := WriteJSON(&buf, tree, opts...); err != nil {
			t.Fatal(err)
		}
		if want := readSample(t, golden); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s mismatch:\n%s", golden, buf.Bytes())
		}
	}
}

func TestWriteJSONMergedBlocksAndDuplicates(t *testing.T) {
	b := &Block{}
	b.Add("x", Int(1))
	b.AddBlock("x").Add("y", Str("a\"\\\n\x01\xff"))
	b.AddBlock("e")
	b.Add("x", Bool(false))
	var plain, merged bytes.Buffer
	WriteJSON(&plain, b)
	WriteJSON(&merged, b, MergeDuplicates())
	wantPlain := "{\n  \"x\": 1,\n  \"x\": false,\n  \"x\": {\n    \"y\": \"a\\\"\\\\\\n\\u0001\uFFFD\"\n  },\n  \"e\": {}\n}"
	wantMerged := "{\n  \"x\": [\n    1,\n    false,\n    {\n      \"y\": \"a\\\"\\\\\\n\\u0001\uFFFD\"\n    }\n  ],\n  \"e\": {}\n}"
	if plain.String() != wantPlain {
		t.Errorf("plain:\n%s\nwant:\n%s", plain.String(), wantPlain)
	}
	if merged.String() != wantMerged {
		t.Errorf("merged:\n%s\nwant:\n%s", merged.String(), wantMerged)
	}
}

// Expected strings are those of Rust's ryu crate (format32).
func TestRyu32(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want string
	}{
		{0, "0.0"}, {float32(math.Copysign(0, -1)), "-0.0"}, {1, "1.0"}, {5, "5.0"}, {1.25, "1.25"},
		{0.05, "0.05"}, {1e-7, "1e-7"}, {1e-6, "0.000001"}, {1.5e-6, "0.0000015"}, {1.5e-7, "1.5e-7"},
		{1e12, "1000000000000.0"}, {1e13, "1e13"}, {1e14, "1e14"}, {1.5e14, "1.5e14"},
		{123456.79, "123456.79"}, {-2.5, "-2.5"}, {0.1, "0.1"}, {3.4028235e38, "3.4028235e38"},
		{1e-45, "1e-45"}, {float32(math.Inf(1)), "null"}, {float32(math.NaN()), "null"},
	} {
		if got := string(appendRyu32(nil, tc.f)); got != tc.want {
			t.Errorf("ryu(%g) = %s, want %s", tc.f, got, tc.want)
		}
	}
}
