package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx/sd"
)

func TestSDPlainJSON(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx")
	tests := []struct {
		file string
		args []string
		want map[string]any
	}{
		// Without a __debug__ list, keys show as hashes unless named.
		{"reference-generated/pkg_meta.bpx", nil, map[string]any{"#000000017c9b0c46": "sample-package"}},
		{"reference-generated/pkg_meta.bpx", []string{"--names", "name,other"}, map[string]any{"name": "sample-package"}},
		// The SD object is stored twice; only the first counts.
		{"reference-generated/pkg_meta_multi.bpx", nil, map[string]any{
			"#000000017c9b0c46": "multi", "#0000d0b773006c4b": 3.0, "#000000017c9e55d4": []any{"a", "b"}}},
		{"reference-generated/shader_pack.bpx", []string{"-s", "2", "--names", "size"}, map[string]any{"size": 64.0}},
		{"reference-generated/sd_alltypes.bpx", []string{"--compact"}, map[string]any{
			"null": nil, "bool": true, "u8": 171.0, "u16": 43981.0, "u32": 3735928559.0,
			"u64": 72623859790382856.0, "i8": -2.0, "i16": -300.0, "i32": -70000.0, "i64": -5000000000.0,
			"f32": 1.5, "f64": -2.25, "str": "héllo", "arr": []any{7.0, "s", nil}, "obj": map[string]any{"#000000000002b61d": 1.0}}},
		{"synthetic/sd_bool2.bpx", nil, map[string]any{"#0000000000000001": false}},
	}
	for _, tt := range tests {
		r := runBPX(t, nil, append(append([]string{"sd"}, tt.args...), filepath.Join(dir, tt.file))...)
		if r.Code != exitOK {
			t.Errorf("%s: exit %d, stderr %q", tt.file, r.Code, r.Stderr)
			continue
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
			t.Errorf("%s: output is not JSON: %v\n%s", tt.file, err, r.Stdout)
			continue
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(tt.want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s:\n got %s\nwant %s", tt.file, gotJSON, wantJSON)
		}
	}
}

func TestSDTypedJSONRoundTrips(t *testing.T) {
	file := filepath.Join(samplesDir(t), "bpx", "reference-generated", "sd_alltypes.bpx")
	r := runBPX(t, nil, "sd", "--typed", file)
	if r.Code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Stderr)
	}
	for _, want := range []string{`"u16": {`, `"u16": 43981`, `"f32": 1.5`, `"__debug__": [`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("typed output lacks %q:\n%s", want, r.Stdout)
		}
	}
	o, err := sd.UnmarshalTypedJSON([]byte(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := sd.Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != 290 { // the section's size
		t.Errorf("typed output re-encodes to %d bytes, want 290", len(enc))
	}
	if v, _ := o.Get("i64"); !v.Equal(sd.Int64(-5000000000)) {
		t.Errorf("i64 = %v", v)
	}
}

func TestSDErrors(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"synthetic/sd_bad_typecode.bpx"}, exitFail, "section 0: sd: unknown type code (15) at offset 9"},
		{[]string{"synthetic/sd_trunc_string.bpx"}, exitFail, "string without NUL terminator at offset 10"},
		{[]string{"--depth", "16", "synthetic/sd_deep.bpx"}, exitFail, "maximum depth"},
		{[]string{"--ref-budget", "synthetic/sd_flat_15_arrays.bpx"}, exitFail, "container budget"},
		{[]string{"reference-generated/pkg_small.bpx"}, exitFail, "no structured-data section"},
		{[]string{"-s", "9", "reference-generated/pkg_meta.bpx"}, exitFail, "no section 9 (the file has 4)"},
		{[]string{"-s", "3", "reference-generated/pkg_meta.bpx"}, exitFail, "unexpected end of data"},
		{[]string{"synthetic/truncated_header.bpx"}, exitFail, "bpx sd: "},
		{[]string{"no-such-file.bpx"}, exitFail, "no-such-file.bpx"},
		{[]string{"-s", "x", "reference-generated/pkg_meta.bpx"}, exitUsage, "-s wants a section index"},
		{[]string{"--depth", "0", "reference-generated/pkg_meta.bpx"}, exitUsage, "--depth"},
		{nil, exitUsage, "want one FILE"},
		{[]string{"--nope", "x.bpx"}, exitUsage, "-nope"},
	}
	for _, tt := range tests {
		args := append([]string{"sd"}, tt.args...)
		if n := len(args); n > 1 && strings.HasSuffix(args[n-1], ".bpx") {
			args[n-1] = filepath.Join(dir, args[n-1])
		}
		r := runBPX(t, nil, args...)
		if r.Code != tt.code || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("bpx %v: exit %d, stderr %q; want exit %d and %q", tt.args, r.Code, r.Stderr, tt.code, tt.want)
		}
		if r.Stdout != "" {
			t.Errorf("bpx %v: wrote %q to stdout on failure", tt.args, r.Stdout)
		}
		if tt.code == exitFail {
			checkOneLineError(t, r)
		}
	}
	// Without limits options, sd_deep (depth 21) and 15 sibling arrays decode.
	for _, f := range []string{"synthetic/sd_deep.bpx", "synthetic/sd_flat_15_arrays.bpx"} {
		if r := runBPX(t, nil, "sd", filepath.Join(dir, f)); r.Code != exitOK {
			t.Errorf("%s: exit %d, stderr %q", f, r.Code, r.Stderr)
		}
	}
}
