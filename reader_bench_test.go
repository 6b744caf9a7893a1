package bpx

import (
	"bufio"
	"bytes"
	"github.com/gobpx/bpx/internal/xzdec"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	"github.com/klauspost/compress/zlib"
	xi2xz "github.com/mikelolasagasti/xz"
	"github.com/ulikunitz/xz"
)

// goSource returns about n bytes of Go source from GOROOT: realistic,
// compressible text. It falls back to generated text without GOROOT.
func goSource(tb testing.TB, n int) []byte { return gocorpus.Source(n) }

// benchFile writes a container with one section per stored form of data to
// a temporary file and opens it: sections are read from the page cache.
type benchFile struct {
	f    *os.File
	r    *Reader
	data []byte
}

func newBenchFile(b *testing.B, data []byte, secs map[string]rawSection) (*benchFile, map[string]*Section) {
	names := []string{}
	list := []rawSection{}
	for name, s := range secs {
		names = append(names, name)
		list = append(list, s)
	}
	path := filepath.Join(b.TempDir(), "bench.bpx")
	if err := os.WriteFile(path, buildContainer('Z', [16]byte{}, list), 0o644); err != nil {
		b.Fatal(err)
	}
	rc, err := OpenReader(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rc.Close() })
	out := map[string]*Section{}
	for i, n := range names {
		out[n] = rc.Sections[i]
	}
	return &benchFile{f: rc.f, r: &rc.Reader, data: data}, out
}

// BenchmarkStoredSection compares reading an uncompressed, unchecked section
// through Section.ReadAt, Open and AppendData with one plain ReadAt of the
// same bytes from the same file (the baseline).
func BenchmarkStoredSection(b *testing.B) {
	data := goSource(b, 16<<20)
	bf, s := newBenchFile(b, data, map[string]rawSection{
		"raw": rawSec(1, data, 0), "weak": rawSec(1, data, FlagWeak), "crc": rawSec(1, data, FlagCRC32)})
	buf := make([]byte, len(data))
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	raw := s["raw"]
	run("baseline-file-ReadAt", func() error { _, err := bf.f.ReadAt(buf, int64(raw.Pointer)); return err })
	run("Section.ReadAt", func() error { _, err := raw.ReadAt(buf, 0); return err })
	run("Section.Open", func() error {
		rc, err := raw.Open()
		if err != nil {
			return err
		}
		_, err = io.ReadFull(rc, buf)
		rc.Close()
		return err
	})
	for _, name := range []string{"raw", "weak", "crc"} {
		sec := s[name]
		run("Section.AppendData-"+name, func() error { _, err := sec.AppendData(buf[:0]); return err })
	}
}

// BenchmarkZlibSection compares a verified zlib section read with the raw
// klauspost zlib decoder on the same stream (both from memory, and ours from
// a file too).
func BenchmarkZlibSection(b *testing.B) {
	data := goSource(b, 16<<20)
	stream := zlibBytes(b, data)
	buf := make([]byte, len(data))
	b.Run("baseline-klauspost-zlib", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		br := bytes.NewReader(stream)
		zr, _ := zlib.NewReader(br)
		for i := 0; i < b.N; i++ {
			br.Reset(stream)
			zr.(zlib.Resetter).Reset(br, nil)
			if _, err := io.ReadFull(zr, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	mem := buildContainer('Z', [16]byte{}, []rawSection{
		{1, FlagZlib, stream, uint32(len(data)), 0},
		{1, FlagZlib | FlagCRC32, stream, uint32(len(data)), ReferenceCRC32(data)},
	})
	r, err := NewReader(bytes.NewReader(mem), int64(len(mem)))
	if err != nil {
		b.Fatal(err)
	}
	for i, name := range []string{"memory-nocheck", "memory-crc32"} {
		sec := r.Sections[i]
		b.Run("AppendData-"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := sec.AppendData(buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	_, s := newBenchFile(b, data, map[string]rawSection{"z": {1, FlagZlib | FlagCRC32, stream, uint32(len(data)), ReferenceCRC32(data)}})
	b.Run("AppendData-file-crc32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := s["z"].AppendData(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkXZSection compares a verified xz section read with the xz tool
// (liblzma, xz -d -T1) and the two pure-Go decoders on the same stream.
func BenchmarkXZSection(b *testing.B) {
	data := goSource(b, 4<<20)
	stream := xzBytes(b, data)
	buf := make([]byte, len(data))
	if path, err := exec.LookPath("xz"); err == nil {
		file := filepath.Join(b.TempDir(), "s.xz")
		os.WriteFile(file, stream, 0o644)
		b.Run("baseline-xz-tool-T1", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(path, "-d", "-T1", "-c", file)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("raw-xi2-decoder", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			zr, err := xi2xz.NewReader(bytes.NewReader(stream), 0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-xzdec-Reader", func(b *testing.B) { // sections above maxFlatXZ
		b.SetBytes(int64(len(data)))
		var zr xzdec.Reader
		for i := 0; i < b.N; i++ {
			zr.Reset(bytes.NewReader(stream), 0)
			if _, err := io.ReadFull(&zr, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-ulikunitz-decoder", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			zr, err := xz.NewReader(bufio.NewReader(bytes.NewReader(stream)))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	_, s := newBenchFile(b, data, map[string]rawSection{"x": {1, FlagXZ | FlagCRC32, stream, uint32(len(data)), ReferenceCRC32(data)}})
	b.Run("AppendData-file-crc32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := s["x"].AppendData(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
