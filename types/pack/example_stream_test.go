package pack_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"sync/atomic"
	"testing/fstest"

	"github.com/gobpx/bpx/types/pack"
)

// countingFile is a package file that counts the bytes read from it
// (a Package reads from several goroutines).
type countingFile struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// A large stored file (music, video) streams: seeking into it and
// reading reads the 64 KiB chunks asked for, each checked against its
// CRC-32C (SectionStreamDigests), not the whole file.
func Example_stream() {
	music := make([]byte, 8<<20) // does not compress: stored raw
	rnd := rand.New(rand.NewChaCha8([32]byte{}))
	for i := range music {
		music[i] = byte(rnd.Uint32())
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := w.AddFS(fstest.MapFS{"music/theme.ogg": {Data: music}}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	file := &countingFile{r: bytes.NewReader(buf.Bytes())}
	p, err := pack.NewReader(file, int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	f, err := p.Open("music/theme.ogg")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	f.(io.Seeker).Seek(4<<20, io.SeekStart)
	before := file.n.Load()
	chunk := make([]byte, 4096)
	for range 32 { // 128 KiB, as an audio decoder reads
		if _, err := io.ReadFull(f, chunk); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("read 128 KiB of an 8 MiB file: %d KiB read from the package\n", (file.n.Load()-before)>>10)
	// Output: read 128 KiB of an 8 MiB file: 128 KiB read from the package
}
