package bpx_test

import (
	"bytes"
	"testing"

	"github.com/gobpx/bpx"
)

// FuzzWriter writes sections carved out of the input with options taken
// from it, then checks the layout and that every section reads back
// unchanged, and that a rewrite reproduces the container exactly.
func FuzzWriter(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x00, 5, 'h', 'e', 'l', 'l', 'o'})
	f.Add(append([]byte{0x05, 200}, bytes.Repeat([]byte("abc"), 100)...))
	f.Add(append([]byte{0x0b, 40, 0x01, 0, 0x02, 90}, textData(300, 1)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		var secs []testSection
		for len(in) >= 2 && len(secs) < 16 {
			opt, n := in[0], int(in[1])
			in = in[2:]
			n = min(n, len(in))
			secs = append(secs, testSection{
				typ: opt,
				o: bpx.SectionOptions{
					Compression: bpx.Compression(opt % 3),
					Checksum:    bpx.Checksum(opt / 3 % 4),
					Threshold:   int(opt>>4) * 8,
				},
				data: in[:n],
			})
			in = in[n:]
		}
		b := writeContainer(t, secs, bpx.WithConcurrency(2))
		checkLayout(t, b)
		r := openBytes(t, b)
		if len(r.Sections) != len(secs) {
			t.Fatalf("%d sections, want %d", len(r.Sections), len(secs))
		}
		for i, s := range r.Sections {
			got, err := s.Data()
			if err != nil || !bytes.Equal(got, secs[i].data) {
				t.Fatalf("section %d: %v, equal %v", i, err, bytes.Equal(got, secs[i].data))
			}
		}
		var again bytes.Buffer
		if err := bpx.Rewrite(&again, r, nil); err != nil || !bytes.Equal(again.Bytes(), b) {
			t.Fatalf("rewrite: %v, identical %v", err, bytes.Equal(again.Bytes(), b))
		}
	})
}
