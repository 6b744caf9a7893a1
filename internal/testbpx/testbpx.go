// Package testbpx builds BPX test fixtures by hand, for the tests of the
// type packages: little-endian byte strings and containers of raw sections
// written with the root package's writer, bypassing the package under test.
package testbpx

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gobpx/bpx"
)

// LE assembles little-endian bytes from uint8, uint16, uint32, uint64,
// float32 and []byte values. Any other type panics: it is a test bug.
func LE(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		switch v := v.(type) {
		case uint8:
			b = append(b, v)
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, v)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		case []byte:
			b = append(b, v...)
		default:
			panic("testbpx.LE: unsupported value")
		}
	}
	return b
}

// Section is one raw section of a fixture container.
type Section struct {
	Type uint8
	Data []byte
}

// Container writes a container of BPX type typ with TypeExt ext holding the
// sections, each stored as o asks.
func Container(t testing.TB, typ uint8, ext [16]byte, o bpx.SectionOptions, secs ...Section) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(typ)
	w.SetTypeExt(ext)
	for _, s := range secs {
		if err := w.WriteSection(s.Type, o, s.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ReplaceSection writes the container b again with the data of its first
// section of type typ replaced by what change makes of it (its decoded
// bytes), stored raw with checksum ck, every other section copied as it
// is: a valid container that says something else, as a tool that writes
// one would make it.
func ReplaceSection(t testing.TB, b []byte, typ uint8, ck bpx.Checksum, change func([]byte) []byte) []byte {
	t.Helper()
	var s *bpx.Section
	return Rewrite(t, b, func(w *bpx.Writer, x *bpx.Section) error {
		if s == nil && x.Type == typ {
			s = x
			data, err := x.Data()
			if err != nil {
				return err
			}
			return w.WriteSection(x.Type, bpx.SectionOptions{Checksum: ck}, change(data))
		}
		return w.CopySection(x)
	}, func() {
		if s == nil {
			t.Fatalf("no section of type %#x", typ)
		}
	})
}

// Rewrite writes the container b again, of its type and type extension,
// each of its sections in order written by write (w.CopySection copies
// one as it is); then, before the file is closed, it calls each of done.
func Rewrite(t testing.TB, b []byte, write func(w *bpx.Writer, s *bpx.Section) error, done ...func()) []byte {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bpx.NewWriter(&out)
	w.SetType(rd.Header.Type)
	w.SetTypeExt(rd.Header.TypeExt)
	for _, x := range rd.Sections {
		if err := write(w, x); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range done {
		f()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
