package remote_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/types/pack"
)

// ExampleOpen reads a file of a package on a web server as an fs.FS. The
// server here is a local one serving a package built in memory.
func ExampleOpen() {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	w.AddFS(fstest.MapFS{
		"textures/stone.txt": {Data: []byte("grey\n")},
		"scripts/main.lua":   {Data: []byte("print('hi')\n")},
	})
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(buf.Bytes()))
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := remote.Open(ctx, srv.URL+"/mod.bpx")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	p, err := pack.NewReader(f, f.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	data, err := fs.ReadFile(p, "scripts/main.lua")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", data)
	fmt.Println("requests:", f.Stats().Requests)
	// Output:
	// print('hi')
	// requests: 1
}
