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
