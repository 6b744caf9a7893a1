package remote

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"time"
)

// Body is the body of a whole file fetched with Get: read it to its end,
// then Close it.
type Body struct {
	r      io.ReadCloser
	size   int64
	idle   *time.Timer
	d      time.Duration
	cancel context.CancelCauseFunc
	ctx    context.Context
	name   string
	got    int64
}

// Get fetches the whole file at rawURL with one plain GET, no Range: for
// a server or cache that answers range requests with the whole file
// (ErrNoRange), which a reader that must take every byte anyway (a
// download) can still read. The options are Open's: the client, its
// redirect rules (no other scheme, no downgrade to http), the identity
// encoding (a coded answer is ErrProtocol), and the idle timeout between
// reads that return bytes; ctx bounds the whole transfer, whose length no
// request timeout bounds. The answer must be a 200; its size, if it
// states one, is Size. Errors are *Error, as Open's.
func Get(ctx context.Context, rawURL string, opts ...Option) (*Body, error) {
	cfg, u, err := parseOpen(rawURL, opts)
	if err != nil {
		return nil, err
	}
	f := &File{cfg: cfg, url: rawURL, name: u.Redacted()}
	client := f.withRedirectRules(cfg.client)
	ctx, cancel := context.WithCancelCause(ctx)
	b := &Body{d: cfg.idle, cancel: cancel, ctx: ctx, name: f.name, size: -1}
	b.idle = time.AfterFunc(cfg.idle, func() {
		cancel(idleError(cfg.idle))
	})
	fail := func(status int, err error) (*Body, error) {
		b.idle.Stop()
		cancel(nil)
		return nil, &Error{URL: f.name, Off: 0, End: 0, Status: status, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fail(0, err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		return fail(0, err)
	}
	b.idle.Reset(cfg.idle)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fail(resp.StatusCode, getStatusError(resp))
	}
	if err := identity(resp.Header); err != nil {
		resp.Body.Close()
		return fail(resp.StatusCode, err)
	}
	b.r, b.size = resp.Body, resp.ContentLength
	return b, nil
}

// getStatusError is the error of Get's answer of another status than
// 200, matching what Open's would.
func getStatusError(resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("%s: %w", resp.Status, fs.ErrNotExist)
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%s: %w", resp.Status, fs.ErrPermission)
	}
	return fmt.Errorf("unexpected status %s", resp.Status)
}

// Size returns the size the answer states, or -1 if it states none.
func (b *Body) Size() int64 { return b.size }

// Read reads the body. A server silent for the idle timeout ends it with
// an error matching ErrTimeout; one that sends more than the size it
// stated, with ErrProtocol.
func (b *Body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.idle.Reset(b.d)
		b.got += int64(n)
	}
	if b.size >= 0 && b.got > b.size {
		return n, &Error{URL: b.name, Status: http.StatusOK, Err: fmt.Errorf("%w: body longer than its Content-Length %d", ErrProtocol, b.size)}
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); cause != nil {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		return n, &Error{URL: b.name, Off: b.got, End: b.got, Status: http.StatusOK, Err: err}
	}
	return n, err
}

// Close ends the transfer.
func (b *Body) Close() error {
	b.idle.Stop()
	err := b.r.Close()
	b.cancel(nil)
	return err
}
