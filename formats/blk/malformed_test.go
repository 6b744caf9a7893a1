package blk

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Offsets inside section_fat.blk (see the worked example in the notes):
// names 3..84, counts at 84..86, payload 87..203, param i at 203+8i,
// block map 299..313 (root 299, alpha 303, beta 307, gamma 310).
const (
	fatBlocksCount = 84
	fatPayload     = 87
	fatParams      = 203
	fatBlockMap    = 299
)

func mutate(b []byte, f func([]byte) []byte) []byte {
	return f(append([]byte(nil), b...))
}

func put32(b []byte, off int, v uint32) {
	b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func TestDecodeMalformed(t *testing.T) {
	fat := readSample(t, "section_fat.blk")
	tests := []struct {
		name   string
		data   []byte
		err    error
		offset int64 // -1: not a FormatError
		what   string
	}{
		{"empty", nil, ErrFormat, 0, "empty input"},
		{"bad kind", []byte{0x07, 1, 2}, ErrUnsupported, -1, "not a binary BLK kind"},
		{"text file", []byte("a:i=1"), ErrUnsupported, -1, "text BLK"},
		{"overlong ULEB", []byte{1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0}, ErrFormat, 2, "longer than 5 bytes"},
		{"ULEB overflow", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x7f}, ErrFormat, 1, "overflows 32 bits"},
		{"names size 0", []byte{1, 1, 0, 1, 0, 0, 0, 0, 0}, ErrFormat, 2, "names size is 0"},
		{"names past end", []byte{1, 2, 0x40, 'a', 0}, ErrFormat, 2, "runs past the end"},
		{"too many names", []byte{1, 3, 2, 'a', 0}, ErrFormat, 1, "cannot fit"},
		{"names size limit", []byte{1, 1, 0x81, 0x80, 0x80, 0x80, 0x01}, ErrTooLarge, 2, "above"},
		{"no root", mutate(fat, func(b []byte) []byte { b[fatBlocksCount] = 0; return b }), ErrFormat, fatBlocksCount, "no root block"},
		{"huge block count", []byte{1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0}, ErrFormat, 2, "cannot fit"},
		{"huge param count", []byte{1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}, ErrFormat, 3, "run past the end"},
		{"payload past end", []byte{1, 0, 1, 0, 0x7f, 0}, ErrFormat, 4, "payload of 127 bytes"},
		{"param name id", mutate(fat, func(b []byte) []byte { b[fatParams] = 0x20; return b }), ErrFormat, fatParams, "name id 32 out of range"},
		{"unknown type", mutate(fat, func(b []byte) []byte { b[fatParams+3] = 0x0E; return b }), ErrFormat, fatParams + 3, "unknown type 0x0e"},
		{"type 0", mutate(fat, func(b []byte) []byte { b[fatParams+3] = 0; return b }), ErrFormat, fatParams + 3, "unknown type 0x00"},
		{"wide value past payload", mutate(fat, func(b []byte) []byte { put32(b, fatParams+4, 112); return b }), ErrFormat, fatParams + 4, "runs past the payload"},
		{"string offset", mutate(fat, func(b []byte) []byte { put32(b, fatParams+3*8+4, 200); return b }), ErrFormat, fatParams + 3*8 + 4, "string offset 200"},
		{"tagged string id", mutate(fat, func(b []byte) []byte { put32(b, fatParams+3*8+4, 0x80000063); return b }), ErrFormat, fatParams + 3*8 + 4, "string name id 99"},
		{"string without NUL", mutate(fat, func(b []byte) []byte { put32(b, fatParams+3*8+4, 115); return b }), ErrFormat, fatPayload + 115, "not NUL-terminated"},
		{"block name id", mutate(fat, func(b []byte) []byte { b[fatBlockMap+4] = 0x7f; return b }), ErrFormat, fatBlockMap + 4, "name id 126"},
		{"claimed twice", mutate(fat, func(b []byte) []byte { b[fatBlockMap+7] = 2; return b }), ErrFormat, fatBlockMap + 4, "already claimed"},
		{"never claimed", mutate(fat, func(b []byte) []byte { b[fatBlockMap+2] = 1; return b }), ErrFormat, fatBlockMap + 8, "claimed by no block"},
		{"child range", mutate(fat, func(b []byte) []byte { b[fatBlockMap+3] = 3; return b }), ErrFormat, fatBlockMap, "out of range"},
		{"params overclaimed", mutate(fat, func(b []byte) []byte { b[fatBlockMap+1] = 13; return b }), ErrFormat, fatBlockMap, "claims params"},
		{"params unclaimed", mutate(fat, func(b []byte) []byte { b[fatBlockMap+1] = 2; return b }), ErrFormat, fatBlockMap + 11, "1 params belong to no block"},
		{"cycle", mutate(fat, func(b []byte) []byte {
			return append(b[:fatBlockMap], 0, 3, 1, 1, 4, 3, 0, 0x0c, 3, 1, 3, 8, 3, 1, 2)
		}), ErrFormat, fatBlockMap, "not reachable from the root"},
		{"block counts above u16", []byte{1, 0, 1, 0, 0, 0, 0x80, 0x80, 0x04, 0}, ErrTooLarge, 5, "max 65535"},
		{"block map truncated", fat[:len(fat)-1], ErrFormat, int64(len(fat) - 1), "truncated ULEB"},
		{"FAT_ZST short", []byte{2, 1}, ErrFormat, 1, "length truncated"},
		{"FAT_ZST past end", []byte{2, 0xff, 0xff, 0xff, 0x28, 0xb5}, ErrFormat, 1, "runs past the end"},
		{"FAT_ZST not zstd", []byte{2, 2, 0, 0, 0x28, 0xb5}, ErrFormat, 4, "bad FAT_ZST zstd frame"},
		{"BBF short", []byte{0, 'B', 'B', 'F'}, ErrFormat, 0, "header truncated"},
		{"BBF version", []byte{0, 'B', 'B', 'F', 2, 0, 0, 0, 0, 0, 0, 0}, ErrUnsupported, -1, "version 2"},
		{"BBF body past end", []byte{0, 'B', 'B', 'F', 3, 0, 0, 0, 9, 0, 0, 0}, ErrFormat, 8, "runs past the end"},
		{"not BBF", []byte{0, 'X', 'Y', 'Z', 3, 0, 0, 0, 0, 0, 0, 0}, ErrUnsupported, -1, "without a BBF"},
		{"BBz bomb header", []byte{0, 'B', 'B', 'z', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, ErrTooLarge, 4, "unpacked size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !strings.Contains(err.Error(), tc.what) {
				t.Errorf("err = %q, want it to mention %q", err, tc.what)
			}
			var fe *FormatError
			if tc.offset >= 0 {
				if !errors.As(err, &fe) {
					t.Fatalf("err %v is not a *FormatError", err)
				}
				if fe.Offset != tc.offset {
					t.Errorf("offset = %d, want %d (%v)", fe.Offset, tc.offset, err)
				}
			}
		})
	}
}

// Every proper prefix of a valid file must fail cleanly.
func TestDecodeTruncated(t *testing.T) {
	d := sampleDecoder(t)
	for _, name := range []string{"section_fat.blk", "section_fat_s.blk", "section_slim.blk", "section_bbf.blk", "section_fat_zst.blk"} {
		data := readSample(t, name)
		for n := 0; n < len(data); n++ {
			if _, err := d.Decode(data[:n]); err == nil {
				t.Errorf("%s[:%d] decoded without error", name, n)
			}
		}
	}
}

func TestDecodeIgnoresTrailingBytes(t *testing.T) {
	junk := bytes.Repeat([]byte{0xAB}, 256) // game FAT_ZST files carry 256 bytes after the frame
	for _, name := range []string{"section_fat.blk", "section_fat_zst.blk"} {
		got, err := Decode(append(readSample(t, name), junk...))
		if err != nil {
			t.Fatalf("%s + junk: %v", name, err)
		}
		mustEqual(t, got, sectionTree())
	}
}

func TestDecodeEmptyFAT(t *testing.T) {
	// No names (and so no names size), one empty root block.
	got, err := Decode([]byte{1, 0, 1, 0, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Params) != 0 || len(got.Blocks) != 0 || got.Name != "" {
		t.Fatalf("got %#v", got)
	}
}

func TestDecodeFATZstdPlaintextKind(t *testing.T) {
	fat := readSample(t, "section_fat.blk")
	z, err := zstdCompress(fat[1:], nil, 0) // body without its 0x01
	if err != nil {
		t.Fatal(err)
	}
	data := append([]byte{2, byte(len(z)), byte(len(z) >> 8), byte(len(z) >> 16)}, z...)
	_, err = Decode(data)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.In != "zstd plaintext" || fe.Offset != 0 {
		t.Fatalf("err = %v, want a plaintext error at 0", err)
	}
}

func TestDecodeMaxSize(t *testing.T) {
	fat := readSample(t, "section_fat.blk")
	big := append(append([]byte(nil), fat...), make([]byte, 1<<20)...)
	z, err := zstdCompress(big, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := append([]byte{2, byte(len(z)), byte(len(z) >> 8), byte(len(z) >> 16)}, z...)
	d := &Decoder{maxSize: 64 << 10}
	if _, err := d.Decode(data); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if got, err := Decode(data); err != nil {
		t.Fatal(err)
	} else {
		mustEqual(t, got, sectionTree())
	}
}

// The documented memory bound: about 40 bytes per input byte, measured on
// the densest inputs (only blocks, or only params).
func TestDecodeMemoryBound(t *testing.T) {
	const n = 60000
	blocks := []byte{1, 0}
	blocks = appendULEB(blocks, n)
	blocks = append(blocks, 0, 0, 0, 0) // params, payload; root: name, params
	blocks = appendULEB(blocks, n-1)
	blocks = append(blocks, 1)
	for i := 1; i < n; i++ {
		blocks = append(blocks, 0, 0, 0)
	}
	params := []byte{1, 1, 2, 'a', 0, 1}
	params = appendULEB(params, n)
	params = append(params, 0)
	for i := 0; i < n; i++ {
		params = append(params, 0, 0, 0, byte(TypeInt), 1, 2, 3, 4)
	}
	params = append(params, 0)
	params = appendULEB(params, n)
	params = append(params, 0)
	for _, data := range [][]byte{blocks, params} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := Decode(data)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Blocks)+len(b.Params) < n-1 {
			t.Fatalf("decoded %d blocks and %d params", len(b.Blocks), len(b.Params))
		}
		per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data))
		t.Logf("%.1f bytes per input byte", per)
		if per > 40 {
			t.Errorf("%.1f bytes allocated per input byte, documented bound is about 40", per)
		}
	}
}
