package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// writeContainer writes a small container with the project's writer:
// section 0 raw text, section 1 zlib, section 2 xz; returns its path.
func writeContainer(t *testing.T) (string, []string) {
	t.Helper()
	texts := []string{"plain section\n", strings.Repeat("zlib section ", 100), strings.Repeat("xz section ", 100)}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('Z')
	w.SetTypeExt([16]byte{0xAB})
	for i, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressZlib, bpx.CompressXZ} {
		sw, err := w.CreateSection(uint8(i+1), bpx.SectionOptions{Compression: c, Checksum: bpx.ChecksumCRC32})
		if err != nil {
			t.Fatal(err)
		}
		sw.Write([]byte(texts[i]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.bpx")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, texts
}

func TestInfo(t *testing.T) {
	path, texts := writeContainer(t)
	r := runBPX(t, nil, "info", "--json", path)
	if r.Code != exitOK {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var got struct {
		Type     any    `json:"type"`
		Version  int    `json:"version"`
		Checksum uint32 `json:"checksum"`
		FileSize int    `json:"file_size"`
		TypeExt  string `json:"type_ext"`
		Sections []struct {
			Index, Type, Flags, Pointer, CSize, USize int
			Checksum                                  uint32
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("bad JSON %q: %v", r.Stdout, err)
	}
	fi, _ := os.Stat(path)
	if got.Type != "Z" || got.Version != 2 || got.FileSize != int(fi.Size()) || got.TypeExt != "ab000000000000000000000000000000" {
		t.Errorf("header: %+v", got)
	}
	if len(got.Sections) != 3 || got.Sections[0].USize != len(texts[0]) || got.Sections[1].Flags != bpx.FlagZlib|bpx.FlagCRC32 || got.Sections[2].Index != 2 {
		t.Errorf("sections: %+v", got.Sections)
	}
	r = runBPX(t, nil, "info", path)
	if r.Code != exitOK || !strings.Contains(r.Stdout, `type:      "Z"`) || !strings.Contains(r.Stdout, "zlib,crc32") {
		t.Errorf("text info: exit %d\n%s", r.Code, r.Stdout)
	}
	// a non-printable type byte is a number in JSON
	r = runBPX(t, nil, "info", "--json", filepath.Join(samplesDir(t), "bpx", "reference-generated", "empty_container.bpx"))
	if r.Code != exitOK || !strings.Contains(r.Stdout, `"type": 0,`) || !strings.Contains(r.Stdout, `"sections": []`) {
		t.Errorf("empty container: %s", r.Stdout)
	}
}

func TestCatSection(t *testing.T) {
	path, texts := writeContainer(t)
	for i, want := range texts {
		r := runBPX(t, nil, "cat", "-s", string(rune('0'+i)), path)
		if r.Code != exitOK || r.Stdout != want {
			t.Errorf("section %d: exit %d, got %q", i, r.Code, r.Stdout)
		}
	}
	// flags after the file work too; --raw gives the stored bytes
	r := runBPX(t, nil, "cat", path, "-s", "1", "--raw")
	if r.Code != exitOK || r.Stdout == texts[1] || len(r.Stdout) == 0 {
		t.Errorf("raw: exit %d, %d bytes", r.Code, len(r.Stdout))
	}
	r = runBPX(t, nil, "cat", "--hex", "-s", "0", path)
	if r.Code != exitOK || !strings.HasPrefix(r.Stdout, "00000000  70 6c 61 69 6e") {
		t.Errorf("hex: %q", r.Stdout)
	}
	for _, args := range [][]string{{"cat", path}, {"cat", "-s", "x", path}, {"cat", "-s", "0"}, {"cat", "--bogus", path}} {
		if r := runBPX(t, nil, args...); r.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, r.Code, exitUsage)
		}
	}
	r = runBPX(t, nil, "cat", "-s", "7", path)
	if r.Code != exitFail {
		t.Errorf("missing section: exit %d", r.Code)
	}
	checkOneLineError(t, r)
}

func TestVerify(t *testing.T) {
	path, _ := writeContainer(t)
	r := runBPX(t, nil, "verify", path)
	if r.Code != exitOK || !strings.Contains(r.Stdout, ": ok") {
		t.Fatalf("good file: exit %d, %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// flip a byte of the xz section's stored data
	b, _ := os.ReadFile(path)
	b[len(b)-30] ^= 0xFF
	bad := filepath.Join(t.TempDir(), "bad.bpx")
	os.WriteFile(bad, b, 0o644)
	r = runBPX(t, nil, "verify", path, bad)
	if r.Code != exitFail || !strings.Contains(r.Stdout, "bad.bpx: FAILED") || !strings.Contains(r.Stderr, "section 2") {
		t.Errorf("corrupt file: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runBPX(t, nil, "verify"); r.Code != exitUsage {
		t.Errorf("no args: exit %d", r.Code)
	}
}

// TestMalformedSamples: every synthetic sample that is broken at the
// container level gives exit 1 and one-line errors, never a stack trace.
func TestMalformedSamples(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx", "synthetic")
	for _, name := range []string{"bad_header_checksum", "bad_section_checksum", "bad_signature", "huge_section_num",
		"truncated_header", "truncated_section_data", "truncated_sht", "version0", "version3",
		"xz_csize_with_trailing_garbage", "xz_truncated_stream", "xz_usize_too_large", "xz_usize_too_small"} {
		file := filepath.Join(dir, name+".bpx")
		r := runBPX(t, nil, "verify", file)
		if r.Code != exitFail || strings.Contains(r.Stderr, "goroutine") {
			t.Errorf("verify %s: exit %d, stderr %q", name, r.Code, r.Stderr)
		}
		r = runBPX(t, nil, "cat", "-s", "0", file)
		if r.Code != exitFail {
			t.Errorf("cat %s: exit %d", name, r.Code)
		}
		checkOneLineError(t, r)
	}
	for _, name := range []string{"zlib_section", "std_crc32_section", "trailing_garbage", "both_check_flags"} {
		if r := runBPX(t, nil, "verify", filepath.Join(dir, name+".bpx")); r.Code != exitOK {
			t.Errorf("verify %s: exit %d %s", name, r.Code, r.Stderr)
		}
	}
}

func TestTypeSpecificInfoCatVerify(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx")
	ref := filepath.Join(dir, "reference-generated")
	r := runBPX(t, nil, "info", filepath.Join(ref, "pkg_xz.bpx"))
	if r.Code != exitOK || !strings.Contains(r.Stdout, "architecture x86_64, platform Linux, generator BD") {
		t.Errorf("package TypeExt: %s", r.Stdout)
	}
	r = runBPX(t, nil, "info", filepath.Join(ref, "shader_pack.bpx"))
	if r.Code != exitOK || !strings.Contains(r.Stdout, "GL46") {
		t.Errorf("shader TypeExt: %s", r.Stdout)
	}
	r = runBPX(t, nil, "cat", filepath.Join(ref, "pkg_small.bpx"), "hello.txt")
	if r.Code != exitOK || r.Stdout != "Hello, BPX!\n" {
		t.Errorf("cat object: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	r = runBPX(t, nil, "cat", filepath.Join(ref, "pkg_small.bpx"), "missing.txt")
	if r.Code != exitFail {
		t.Errorf("cat missing object: exit %d", r.Code)
	}
	checkOneLineError(t, r)
	if r := runBPX(t, nil, "verify", filepath.Join(ref, "pkg_xz.bpx"), filepath.Join(dir, "real", "BPX-rs_tests_test.bpx")); r.Code != exitOK {
		t.Errorf("verify good packages: exit %d %s", r.Code, r.Stderr)
	}
	for _, name := range []string{"pkg_1based_start", "pkg_missing_start_section", "pkg_size_beyond_data", "pkg_offset_beyond_section", "pkg_bad_arch"} {
		r := runBPX(t, nil, "verify", filepath.Join(dir, "synthetic", name+".bpx"))
		if r.Code != exitFail || !strings.Contains(r.Stdout, "FAILED") {
			t.Errorf("verify %s: exit %d %s", name, r.Code, r.Stdout)
		}
	}
}
