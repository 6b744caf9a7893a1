package bpx

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/gobpx/bpx/internal/leakcheck"
)

// TestAppendDataChecksumPipeline reads sections large enough for
// AppendData's background checksum (sumPipe), concurrently, with good and
// bad checksums and a stream damaged after the pipeline started, and
// checks the results and that no goroutine is left running.
func TestAppendDataChecksumPipeline(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	leakcheck.Check(t)
	data := bytes.Repeat([]byte("section data for the checksum pipeline, "), 3*sumPipeChunk/40)
	z := zlibBytes(t, data)
	damaged := bytes.Clone(z)
	damaged[len(damaged)*3/4] ^= 0xFF // past the first chunks handed to the pipe
	ref := ReferenceCRC32(data)
	rd := open(t, buildContainer('Z', [16]byte{}, []rawSection{
		{1, FlagZlib | FlagCRC32, z, uint32(len(data)), ref},
		{1, FlagZlib | FlagWeak, z, uint32(len(data)), WeakChecksum(0, data)},
		{1, FlagZlib | FlagCRC32, z, uint32(len(data)), ref + 1},
		{1, FlagZlib | FlagCRC32, damaged, uint32(len(data)), ref},
		{1, FlagXZ | FlagCRC32, xzBytes(t, data), uint32(len(data)), ref},
		{1, FlagZlib | FlagCRC32, z, uint32(len(data)), StandardCRC32(data)},
	}))
	if s := rd.Sections[0]; s.USize < 2*sumPipeChunk {
		t.Fatalf("section of %d bytes is too small for the pipeline", s.USize)
	}
	check := func(i int) {
		got, err := rd.Sections[i].Data()
		switch i {
		case 2:
			var ce *ChecksumError
			if !errors.As(err, &ce) || ce.Expected != ref+1 || ce.Actual != ref || len(got) != 0 {
				t.Errorf("section 2: %v, %d bytes; want a ChecksumError", err, len(got))
			}
		case 3:
			if !errors.Is(err, ErrFormat) || len(got) != 0 {
				t.Errorf("section 3 (damaged): %v, %d bytes; want ErrFormat", err, len(got))
			}
		default:
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("section %d: %v, equal %v", i, err, bytes.Equal(got, data))
			}
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rd.Sections {
				check(i)
			}
		}()
	}
	wg.Wait()
}

// TestWriterLeavesNoGoroutine checks that Close ends every goroutine a
// Writer started (compression workers and their checksum helpers), also
// after a failure.
func TestWriterLeavesNoGoroutine(t *testing.T) {
	leakcheck.Check(t)
	data := bytes.Repeat([]byte("compressible section body "), 20_000)
	for _, fail := range []bool{false, true} {
		var dst io.Writer = io.Discard
		if fail {
			dst = failWriter{}
		}
		w := NewWriter(dst, WithTempDir(t.TempDir()), WithConcurrency(3))
		for i, c := range []Compression{CompressZlib, CompressXZ, CompressZlib, CompressNone, CompressXZ} {
			if err := w.WriteSection(uint8(i), SectionOptions{Compression: c, Checksum: ChecksumCRC32}, data); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); (err != nil) != fail {
			t.Errorf("Close (failing destination %v) = %v", fail, err)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
