package pull_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx/pull"
	"github.com/gobpx/bpx/types/pack"
)

// packTree packs the tree m into memory.
func packTree(m fstest.MapFS) []byte {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := w.AddFS(m); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// A game updates its package from a server: the player has version 1,
// the server version 2, which changes one texture and adds one.
func Example() {
	r := rand.New(rand.NewPCG(1, 1))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	v1 := fstest.MapFS{}
	for i := range 40 {
		v1[fmt.Sprintf("textures/t%02d.png", i)] = &fstest.MapFile{Data: noise(50_000)}
	}
	v2 := fstest.MapFS{"textures/new.png": {Data: noise(30_000)}}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["textures/t07.png"] = &fstest.MapFile{Data: noise(50_000)}
	old, newer := packTree(v1), packTree(v2)

	// The server: any static HTTP server that answers range requests.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "game.bpx", time.Time{}, bytes.NewReader(newer))
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "pull-example")
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "game.bpx")
	os.WriteFile(local, old, 0o644)

	res, err := pull.PullURL(context.Background(), srv.URL+"/game.bpx", local, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, _ := os.ReadFile(local)
	fmt.Println("the server's file:", bytes.Equal(got, newer))
	fmt.Println("fetched less than a fifth of it:", res.Fetched < res.Size/5)
	fmt.Println("copied the rest from the old file:", res.Copied+res.Fetched >= res.Size)
	// Output:
	// the server's file: true
	// fetched less than a fifth of it: true
	// copied the rest from the old file: true
}
