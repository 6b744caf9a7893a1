package pack_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/gobpx/bpx/types/pack"
)

// An installer checks a package with a progress bar, and learns which
// files a damaged section holds, to fetch them again.
func ExamplePackage_VerifyAllContext() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := w.AddFS(fstest.MapFS{
		"maps/e1m1.txt": {Data: bytes.Repeat([]byte("a map "), 100)},
		"maps/e1m2.txt": {Data: bytes.Repeat([]byte("another map "), 100)},
	}); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	p, err := pack.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	// One byte of the data changed.
	for _, s := range p.Reader.Sections {
		if s.Type == pack.SectionData {
			b[s.Pointer+uint64(s.StoredSize())/2] ^= 1
		}
	}
	p, err = pack.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	err = p.VerifyAllContext(context.Background(), func(done, total int64) {
		if done == total {
			fmt.Println("checked 100%")
		}
	})
	var damaged *pack.SectionError
	if errors.As(err, &damaged) {
		fmt.Println("damaged:", damaged.Files)
	}
	// Output:
	// checked 100%
	// damaged: [maps/e1m1.txt maps/e1m2.txt]
}
