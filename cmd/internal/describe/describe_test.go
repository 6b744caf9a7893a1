package describe

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/types/pack"
)

func TestNames(t *testing.T) {
	if got := TypeByte('P'); got != "P" {
		t.Errorf("TypeByte('P') = %v", got)
	}
	if got := TypeByte(0x01); got != uint8(1) {
		t.Errorf("TypeByte(1) = %#v", got)
	}
	if TypeName(bpx.TypePackage) != "package" || TypeName(0x01) != "" {
		t.Errorf("TypeName: %q, %q", TypeName(bpx.TypePackage), TypeName(0x01))
	}
	for f, want := range map[uint8]string{0: "-", bpx.FlagXZ | bpx.FlagCRC32: "xz,crc32", 0x80 | bpx.FlagZlib: "zlib,0x80"} {
		if got := FlagNames(f); got != want {
			t.Errorf("FlagNames(%#x) = %q, want %q", f, got, want)
		}
	}
	for typ, want := range map[uint8]string{0xFE: "sd", 0xFD: "table", 0xFF: "strings", 2: "hex"} {
		if got := View(typ); got != want {
			t.Errorf("View(%#x) = %q, want %q", typ, got, want)
		}
	}
	if got := TypeExt(0x01, [16]byte{}); got != "" {
		t.Errorf("TypeExt of an unknown type = %q", got)
	}
}

// TestDescribePackage: a package's sections are named, its TypeExt
// decoded and its dead bytes counted; the JSON keys are those of
// "bpx info --json".
func TestDescribePackage(t *testing.T) {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	fw, err := w.Create("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("hello"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	p := OpenPackage(r)
	if p == nil {
		t.Fatal("OpenPackage: nil")
	}
	defer p.Close()
	info := Describe(r, p)
	if info.Type != "P" || info.DeadBytes == nil || *info.DeadBytes != 0 || info.Shader != nil {
		t.Errorf("info: %+v", info)
	}
	names := map[string]bool{}
	for _, s := range info.Sections {
		names[s.Name] = true
	}
	if !names["object table"] || !names["strings"] || !names["data"] {
		t.Errorf("section names: %v", names)
	}
	if d := TypeExt(r.Header.Type, r.Header.TypeExt); !bytes.HasPrefix([]byte(d), []byte("package: architecture ")) {
		t.Errorf("TypeExt: %q", d)
	}
	b, _ := json.Marshal(info)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"type", "version", "checksum", "file_size", "type_ext", "sections", "dead_bytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if OpenPackage(&bpx.Reader{Header: bpx.MainHeader{Type: bpx.TypeTexture}}) != nil {
		t.Error("OpenPackage of a texture: not nil")
	}
}

// Describing a package counts its objects and dead bytes without reading
// its names, which it does not show: a strings section of 256 MiB of
// zeros (16 MiB with -short) in a few kilobytes of xz is not decompressed.
func TestDescribePackageSkipsNames(t *testing.T) {
	size := int64(256 << 20)
	if testing.Short() {
		size = 16 << 20 // as telling, and cheaper to build (-race)
	}
	file := testbpx.PackageNamesBomb(t, size)
	r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := OpenPackage(r)
	if p == nil {
		t.Fatal("OpenPackage: nil")
	}
	defer p.Close()
	info := Describe(r, p)
	runtime.ReadMemStats(&after)
	if len(p.Objects()) != 1 || info.DeadBytes == nil || *info.DeadBytes != 0 {
		t.Errorf("%d objects, info %+v", len(p.Objects()), info)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("describing a %d-byte package allocated %d bytes", len(file), got)
	}
}
