package bpx

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/internal/samples"
)

// FuzzReader opens arbitrary bytes, reads every section through Data and
// Open, and re-writes whatever parsed: a container that reads must survive
// a write and a re-read with the same contents.
func FuzzReader(f *testing.F) {
	f.Add(buildContainer('Z', [16]byte{}, nil))
	f.Add(buildContainer('Z', [16]byte{9}, []rawSection{
		rawSec(1, payload, FlagWeak), rawSec(2, payload, FlagCRC32),
		{3, FlagZlib | FlagWeak, zlibBytes(f, payload), 120, WeakChecksum(0, payload)},
		{4, FlagXZ, xzBytes(f, payload), 120, 0},
	}))
	f.Add(buildVersion0('T', [8]byte{}, []v0Section{{1, v0FlagZlib, zlibBytes(f, payload)}}))
	f.Add(blockContainer(f, partialPayload(20<<10), 4<<10))
	f.Add(zstdContainer(f, payload))
	files, _ := filepath.Glob(filepath.Join(samples.Root(), "bpx", "*", "*.bpx")) // none if absent
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Limits small enough for 10,000 executions a minute: every
		// section is decoded four times.
		opts := []Option{WithMaxSectionSize(256 << 10), WithMaxXZDictionary(1 << 20), WithMaxSections(64)}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), opts...)
		if err != nil {
			return
		}
		var good [][]byte
		var goodSecs []*Section
		for _, s := range r.Sections {
			d, err := s.Data()
			rc, oerr := s.Open()
			if oerr == nil {
				d2, err2 := io.ReadAll(rc)
				rc.Close()
				if (err == nil) != (err2 == nil) || (err == nil && !bytes.Equal(d, d2)) {
					t.Fatalf("section %d: Data and Open disagree: %v / %v", s.Index, err, err2)
				}
			}
			// OpenVerified yields what Data does, or nothing.
			var d3 []byte
			rc, err3 := s.OpenVerified()
			if err3 == nil {
				d3, err3 = io.ReadAll(rc)
				rc.Close()
			}
			if (err == nil) != (err3 == nil) || (err == nil && !bytes.Equal(d, d3)) || (err3 != nil && len(d3) > 0) {
				t.Fatalf("section %d: Data and OpenVerified disagree: %v / %v (%d bytes)", s.Index, err, err3, len(d3))
			}
			if err == nil {
				good = append(good, d)
				goodSecs = append(goodSecs, s)
			}
			// Blocks decoded one by one make up what Data returns.
			if blocks, berr := s.Blocks(); berr == nil && len(blocks) > 0 && err == nil {
				var all []byte
				for _, bl := range blocks {
					if all, berr = s.AppendBlock(all, bl); berr != nil {
						break
					}
				}
				if berr == nil && !bytes.Equal(all, d) {
					t.Fatalf("section %d: %d blocks decode to %d bytes, Data to %d", s.Index, len(blocks), len(all), len(d))
				}
			}
		}
		// Re-write what parsed and read it back.
		var out bytes.Buffer
		w := NewWriter(&out)
		w.SetType(r.Header.Type)
		w.SetTypeExt(r.Header.TypeExt)
		for i, s := range goodSecs {
			sw, err := w.CreateSection(s.Type, SectionOptions{Checksum: ChecksumCRC32})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sw.Write(good[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r2, err := NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(r2.Sections) != len(good) {
			t.Fatalf("re-read %d sections, wrote %d", len(r2.Sections), len(good))
		}
		for i, s := range r2.Sections {
			d, err := s.Data()
			if err != nil || !bytes.Equal(d, good[i]) {
				t.Fatalf("re-read section %d: %v", i, err)
			}
		}
	})
}
