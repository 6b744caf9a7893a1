package bpx_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// shaSummary is the SHA-256 of each section's stored bytes, in order.
type shaSummary struct {
	out []byte
	hdr []bpx.SectionHeader
}

func (s *shaSummary) Add(h bpx.SectionHeader, r io.Reader) error {
	d := sha256.New()
	if _, err := io.Copy(d, r); err != nil {
		return err
	}
	s.out = d.Sum(s.out)
	s.hdr = append(s.hdr, h)
	return nil
}

func (s *shaSummary) Data() ([]byte, error) { return s.out, nil }

func TestWriteSummary(t *testing.T) {
	// A source container to copy a section from.
	var src bytes.Buffer
	sw := bpx.NewWriter(&src)
	if err := sw.WriteSection(7, bpx.SectionOptions{Compression: bpx.CompressZlib}, bytes.Repeat([]byte("copied "), 5000)); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	sr, err := bpx.NewReader(bytes.NewReader(src.Bytes()), int64(src.Len()))
	if err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	// Small spool threshold and memory limit: bodies go to temporary files.
	w := bpx.NewWriter(&buf, bpx.WithSpoolThreshold(4096), bpx.WithMemoryLimit(4096))
	big := bytes.Repeat([]byte("some text that compresses well. "), 20000)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}, big))
	must(w.WriteSection(2, bpx.SectionOptions{}))
	must(w.CopySection(sr.Sections[0]))
	must(w.WriteSection(3, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, []byte("raw bytes")))
	first := &shaSummary{}
	must(w.WriteSummary(0xA0, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, first))
	must(w.WriteSection(4, bpx.SectionOptions{}, []byte("after")))
	second := &shaSummary{}
	must(w.WriteSummary(0xA1, bpx.SectionOptions{}, second))
	if err := w.WriteSummary(0xA2, bpx.SectionOptions{Compression: bpx.CompressXZ}, &shaSummary{}); err == nil {
		t.Error("a compressed summary was accepted")
	}
	must(w.Close())

	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sections) != 7 {
		t.Fatalf("%d sections, want 7", len(r.Sections))
	}
	for _, k := range []int{4, 6} {
		s := r.Sections[k]
		if err := s.Verify(); err != nil {
			t.Fatalf("summary section %d: %v", k, err)
		}
		data, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != k*sha256.Size {
			t.Fatalf("summary section %d holds %d bytes, want %d", k, len(data), k*sha256.Size)
		}
		for i := range k {
			raw, err := io.ReadAll(r.Sections[i].OpenRaw())
			if err != nil {
				t.Fatal(err)
			}
			if want := sha256.Sum256(raw); !bytes.Equal(data[i*32:i*32+32], want[:]) {
				t.Errorf("summary %d: digest of section %d does not match its stored bytes", k, i)
			}
		}
	}
	if got := first.hdr[0]; got.Type != 1 || got.CSize != r.Sections[0].CSize || got.Flags != r.Sections[0].Flags {
		t.Errorf("Add saw header %+v, the file holds %+v", got, r.Sections[0].SectionHeader)
	}
	if second.hdr[4].Type != 0xA0 || second.hdr[4].USize != 4*32 {
		t.Errorf("the second summary saw the first as %+v", second.hdr[4])
	}
}

// failing stops reading at once.
type failing struct{}

func (failing) Add(bpx.SectionHeader, io.Reader) error { return errors.New("stop here") }
func (failing) Data() ([]byte, error)                  { return nil, nil }

func TestWriteSummaryError(t *testing.T) {
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf, bpx.WithSpoolThreshold(1024))
	w.WriteSection(1, bpx.SectionOptions{}, bytes.Repeat([]byte("x"), 1<<20))
	w.WriteSummary(2, bpx.SectionOptions{}, failing{})
	err := w.Close()
	if err == nil || !strings.Contains(err.Error(), "stop here") {
		t.Fatalf("Close: %v, want the summarizer's error", err)
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written after a failed summary", buf.Len())
	}
}
