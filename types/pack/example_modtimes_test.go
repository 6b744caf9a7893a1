package pack_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx/types/pack"
)

// The files of a package have the modification times of the files packed,
// to the second: a game can reload what changed, and http.FileServerFS
// sends them as Last-Modified.
func Example_modTimes() {
	tree := fstest.MapFS{
		"levels/intro.cfg": {Data: []byte("music = theme.ogg\n"), ModTime: time.Date(2026, 3, 14, 15, 9, 26, 535, time.UTC)},
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := w.AddFS(tree); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fi, err := fs.Stat(p, "levels/intro.cfg")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fi.ModTime().UTC())
	// Output: 2026-03-14 15:09:26 +0000 UTC
}
