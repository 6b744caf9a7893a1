package remote

import (
	"net/http"
	"sync"
)

// maxIdlePerHost is how many idle connections to a host the default
// client keeps: as many as a pull has requests in flight at most
// (pull.WithConcurrency), where http.DefaultTransport keeps 2.
const maxIdlePerHost = 32

// defaultClient is the client of a File opened without WithClient: as
// http.DefaultClient, over a copy of http.DefaultTransport (made at the
// first Open, so that a program's changes to it before then count) that
// keeps maxIdlePerHost idle connections a host. With 2, the requests a
// File has in flight at once beyond two each opened a new connection
// when they came back: a round trip more each, three over TLS.
var defaultClient = sync.OnceValue(func() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultClient
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	return &http.Client{Transport: t}
})
