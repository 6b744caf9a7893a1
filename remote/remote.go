// Package remote reads a file on an HTTP(S) server with Range requests,
// as an io.ReaderAt, so that bpx.NewReader, pack.NewReader and the type
// packages read remote files unchanged:
//
//	f, err := remote.Open(ctx, "https://cdn.example.com/game/assets.bpx")
//	...
//	defer f.Close()
//	p, err := pack.NewReader(f, f.Size())
//
// The package knows nothing of BPX: it works on any resource a server
// serves with byte ranges.
//
// # Requests
//
// Open sends one GET for the head of the file (DefaultHeadSize bytes,
// WithHeadSize) and learns the size from its Content-Range. ReadAt serves
// reads from a cache of aligned blocks (DefaultBlockSize, WithBlockSize)
// bounded in bytes (DefaultCacheSize, WithCacheSize; the head counts),
// evicting the least recently used. A read that misses fetches the missing
// blocks it covers; adjacent missing blocks of one read are fetched with one
// request, and a read spanning several blocks asks for its own bytes only,
// not its first and last blocks whole. Reads of a block being fetched wait
// for that request instead of sending their own. Reads that continue where
// earlier ones ended (a file streamed or unpacked in order) start a
// read-ahead in the background, in windows that double up to a quarter of
// the cache.
//
// The context given to Open bounds every request of the File, the later
// ones included, as http.NewRequestWithContext does: io.ReaderAt has no
// context parameter. Use a context that lives as long as the File (with a
// deadline if the whole use must end by then); Close ends the requests in
// flight. Each fetch of a range also has two timeouts of its own (see
// Timeouts under Security).
//
// # Redirects
//
// The first request may be redirected (MaxRedirects at most, to http or
// https URLs, never from https to http); the URL that answers it is
// pinned, and every later request goes to it directly, with the user and
// password of the URL given to Open if it has the same origin. A later
// request may be redirected within that origin (scheme, host and port),
// but a redirect to another origin is refused with ErrRedirect: the
// ranges of one File must come from one place, whose answers the pinned
// validator vouches for, and not from wherever a server's redirect points
// to at the time. A client's own CheckRedirect (WithClient) is called
// after these rules.
//
// # Consistency
//
// The file must not change under a reader. Open pins the validator of its
// first answer: its ETag if strong, else its Last-Modified date. Every later
// request carries it in If-Range and If-Match (or If-Unmodified-Since), and
// every later 206 must carry it back, the same (RFC 9110 §15.3.7.3: parts
// combine only under the same strong validator), and state the total size
// in its Content-Range, the same. A 200 answer to such a request, a 412, a
// 416, or a 206 whose validator is missing or differs (a weak ETag where a
// strong one was pinned differs), or whose Content-Range gives another
// total size or none ("*"), is an error matching ErrChanged, and no byte of
// it is returned or cached: the File never returns bytes of two versions
// of the file mixed. A Last-Modified date is taken as the validator as
// given, although a date is strong only if the file did not change twice
// within its second. A server that gives neither a strong ETag nor a
// Last-Modified date leaves only the weaker check of the size (and of a
// weak ETag, compared when an answer carries one): a change that keeps the
// size is not detected.
//
// # Errors
//
// Every error of a request is an *Error naming the URL given to Open (its
// password removed) and the byte range. A 404 or 410 matches
// fs.ErrNotExist, a 401 or 403 fs.ErrPermission; other 4xx answers but 408
// and 429 are errors, not retried, as are refused redirects (ErrRedirect),
// certificates that do not verify, timeouts (ErrTimeout) and protocol
// errors (ErrProtocol). 5xx answers (but 501 and 505), 408 and 429, failed
// connections and bodies cut short are retried (DefaultRetries,
// WithRetries) with a doubling delay, or the answer's Retry-After if
// longer, all within the request timeout; a body still short then matches
// io.ErrUnexpectedEOF. A server that answers a Range request with the
// whole file (200) is refused with ErrNoRange rather than downloaded whole:
// a file larger than the head is not read that way. A 206 whose
// Content-Range does not match the request, or whose body is coded
// (Content-Encoding other than identity), is ErrProtocol.
//
// # Security
//
// The server is not trusted. Limits: the head, each block and each
// read-ahead window are bounded by the options (the read-ahead by a
// quarter of the cache), the cache by WithCacheSize, retries by
// WithRetries (MaxRetries at most), redirects by MaxRedirects, the time of
// every request by the timeouts below. A hostile or broken server can:
//
//   - serve wrong bytes: the BPX checksums and the decoders' limits of the
//     packages reading the File still apply, as to a local file;
//   - serve parts of two versions: refused with ErrChanged when a
//     validator was pinned (see Consistency);
//   - redirect: loops, other schemes and downgrades to http are refused
//     at once, and after Open so is any other origin (see Redirects);
//   - fail requests: errors, and retries only of what may change when
//     asked again;
//   - stall or trickle: see Timeouts.
//
// Timeouts: a request fails with ErrTimeout, and is not retried, when the
// server stays silent for the idle timeout (DefaultIdleTimeout, 30 s,
// WithIdleTimeout): from the request to its answer's headers, or between
// two reads of its body. The fetch of one range, its retries and the waits
// before them included, fails with ErrTimeout when it takes longer than
// the request timeout (DefaultRequestTimeout, 5 min, WithRequestTimeout),
// which catches a body sent a byte at a time; a retry whose wait would
// pass it is not made. A silent server thus fails a read after the idle
// timeout, a trickling one after the request timeout, each once, whatever
// the retries. The context given to Open, and the client's own Timeout,
// if any, bound the requests too.
//
// It cannot make the File hold more than the cache (cached blocks are
// copies, never slices of a larger buffer), the read-ahead windows in
// flight (two at most) and, per concurrent ReadAt, the range that read
// asked for plus two blocks: a body is read into a buffer sized by the
// request, never by the server's headers, and at most one byte past the
// range is read (to detect an overlong body). Answers are never
// decompressed: the requests ask for the identity encoding, and a coded
// answer is an error.
package remote

import (
	"bytes"
	"container/list"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Errors that a File's methods return wrapped in an *Error.
var (
	// ErrChanged means the file on the server changed since Open: another
	// validator, another size, or a failed If-Range/If-Match condition.
	ErrChanged = errors.New("remote: file changed on the server")

	// ErrNoRange means the server answered a Range request with the whole
	// file: it does not support range requests.
	ErrNoRange = errors.New("remote: server ignores range requests")

	// ErrProtocol means an answer broke HTTP's rules for range requests:
	// a missing or malformed Content-Range, one that does not match the
	// request, a body longer than its range, or a body coded (a
	// Content-Encoding other than identity) although the request asked
	// for the identity.
	ErrProtocol = errors.New("remote: protocol error")

	// ErrRedirect means a redirect was refused: more than MaxRedirects, to
	// a scheme other than http and https, from https to http, or, after
	// Open, to another origin than the URL Open pinned.
	ErrRedirect = errors.New("remote: redirect refused")

	// ErrTimeout means a request ran out of time: the server stayed silent
	// for the idle timeout (WithIdleTimeout), or the fetch of a range took
	// longer than the request timeout (WithRequestTimeout).
	ErrTimeout = errors.New("remote: timeout")
)

// Error is the error of a request: the URL, the byte range [Off, End) it
// asked for, the HTTP status if one came, and why it failed.
type Error struct {
	URL      string // without its password
	Off, End int64
	Status   int // HTTP status code, 0 when no answer was read
	Err      error
}

func (e *Error) Error() string {
	// The cause's own "remote: " is said once, here.
	what := fmt.Sprintf(" bytes %d-%d", e.Off, e.End-1)
	if e.End <= e.Off { // a whole file (Get)
		what = ""
		if e.Off > 0 {
			what = fmt.Sprintf(" (after %d bytes)", e.Off)
		}
	}
	msg := fmt.Sprintf("remote: GET %s%s: %s", e.URL, what, strings.TrimPrefix(e.Err.Error(), "remote: "))
	var ca x509.UnknownAuthorityError
	switch {
	case errors.Is(e.Err, ErrNoRange):
		msg += " (a server without range requests, such as python3 -m http.server, cannot be read in parts: download the file, with curl -O say, and open it locally)"
	case errors.Is(e.Err, ErrChanged):
		msg += " (a new version was published while it was read: run the command again)"
	case errors.As(e.Err, &ca):
		msg += " (the server's certificate is signed by an authority this system does not trust: for a private authority, set SSL_CERT_FILE to a file of its certificate in PEM, or add it to the system's store)"
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// File is a remote file opened by Open. Its methods may be called
// concurrently.
type File struct {
	ctx    context.Context
	cancel context.CancelFunc
	cfg    config
	client *http.Client // cfg.client with f's CheckRedirect
	url    string       // for requests: the first answer's URL once pinned
	name   string       // for errors: the URL given to Open
	size   int64
	final  *url.URL // the URL that answered the head request
	pinned bool     // url is the first answer's: redirects stay in its origin

	etag     string // strong ETag sent in If-Range and If-Match
	lastMod  string // Last-Modified, the validator when there is no strong ETag
	weakETag string // weak ETag, compared when answers carry one

	mu        sync.Mutex
	closed    bool
	blocks    map[int64]*list.Element // of *block
	lru       list.List               // front: most recently used
	maxBlocks int
	inflight  map[int64]*call
	ends      [16]int64 // ends of recent reads, to see sequential reads
	endPos    int
	seq       int   // sequential reads in a row that missed
	raEnd     int64 // end of the read-ahead so far
	raWin     int64 // last read-ahead window
	raRunning int
	wg        sync.WaitGroup

	stats Stats
}

// Stats counts what a File sent and received.
type Stats struct {
	Requests int64 // requests sent, retries included
	Bytes    int64 // body bytes received
}

type block struct {
	idx  int64
	data []byte
}

// call is one request for the bytes [start, end), which other reads may
// wait for.
type call struct {
	start, end int64
	done       chan struct{}
	data       []byte
	err        error
}

// parseOpen checks the options and the URL of Open and Get: http or
// https.
func parseOpen(rawURL string, opts []Option) (config, *url.URL, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return cfg, nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return cfg, nil, fmt.Errorf("remote: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return cfg, nil, fmt.Errorf("remote: %s: not an http or https URL", u.Redacted())
	}
	return cfg, u, nil
}

// idleError is the cause of a request ended by the idle timeout d.
func idleError(d time.Duration) error {
	return fmt.Errorf("%w: no byte for %v (idle timeout)", ErrTimeout, d)
}

// Open opens the file at rawURL (http or https) and fetches its head. ctx
// bounds this and every later request of the File (see the package doc).
func Open(ctx context.Context, rawURL string, opts ...Option) (*File, error) {
	cfg, u, err := parseOpen(rawURL, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &File{
		ctx: ctx, cancel: cancel, cfg: cfg, url: rawURL, name: u.Redacted(),
		blocks: make(map[int64]*list.Element), inflight: make(map[int64]*call),
		maxBlocks: cfg.cache / cfg.block,
	}
	f.client = f.withRedirectRules(cfg.client)
	head, err := f.get(0, int64(cfg.head), true)
	if err != nil {
		cancel()
		return nil, err
	}
	f.pinURL(u, f.final)
	f.pinned = true
	bs := int64(cfg.block)
	for i := int64(0); i*bs < int64(len(head)); i++ {
		f.put(i, bytes.Clone(head[i*bs:min((i+1)*bs, int64(len(head)))]))
	}
	return f, nil
}

// Size returns the size of the file, from the first answer.
func (f *File) Size() int64 { return f.size }

// URL returns the URL the File reads, without its password.
func (f *File) URL() string { return f.name }

// Validator returns the validator pinned at Open, as sent in If-Range: a
// strong ETag (with its quotes) or a Last-Modified date; "" if the server
// gave neither.
func (f *File) Validator() string {
	if f.etag != "" {
		return f.etag
	}
	return f.lastMod
}

// Stats returns the requests sent and bytes received so far.
func (f *File) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Close ends the requests in flight, waits for the read-ahead to stop and
// drops the cache. Reads fail afterwards with an error matching
// fs.ErrClosed.
func (f *File) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.blocks = nil
	f.lru.Init()
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	return nil
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt. It fails with io.EOF
// when fewer bytes remain.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	return f.readAt("ReadAt", p, off, f.read)
}

// readAt is ReadAt and FetchAt: the bytes of p that lie in the file are
// read with read, and io.EOF says that p passes the end.
func (f *File) readAt(op string, p []byte, off int64, read func([]byte, int64) error) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("remote: %s %s: negative offset %d", op, f.name, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	if n == 0 {
		return 0, nil
	}
	if err := read(p[:n], off); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// part is where one block of a read comes from.
type part struct {
	data []byte // a cached block
	c    *call  // or a request
}

func (f *File) read(p []byte, off int64) error {
	bs := int64(f.cfg.block)
	end := off + int64(len(p))
	first, last := off/bs, (end-1)/bs
	parts := make([]part, last-first+1)

	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("remote: ReadAt %s: %w", f.name, fs.ErrClosed)
	}
	runs := f.plan(first, last, func(i int64, data []byte, c *call) {
		parts[i-first] = part{data, c}
	})
	for _, c := range runs {
		// A read of several blocks asks for its own bytes only.
		if c.end-c.start > bs {
			c.start = max(c.start, off)
			c.end = min(c.end, end)
		}
		f.register(c)
	}
	ra := f.noteRead(off, end, len(runs) > 0)
	f.mu.Unlock()

	if ra != nil {
		go f.prefetch(ra)
	}
	for _, c := range runs {
		f.fetch(c)
	}
	for k := range parts {
		i := first + int64(k)
		lo, hi := max(off, i*bs), min(end, (i+1)*bs)
		if d := parts[k].data; d != nil {
			copy(p[lo-off:hi-off], d[lo-i*bs:])
			continue
		}
		c := parts[k].c
		<-c.done
		if c.err != nil {
			return c.err
		}
		copy(p[lo-off:hi-off], c.data[lo-c.start:])
	}
	return nil
}

// plan tells each(i, data, c) where block i of first..last comes from:
// the cache (data) or a request (c), and returns the new requests, one per
// run of adjacent missing blocks; f.mu is held. With each nil, cached
// blocks are not marked as used.
func (f *File) plan(first, last int64, each func(i int64, data []byte, c *call)) []*call {
	bs := int64(f.cfg.block)
	var runs []*call
	var cur *call
	for i := first; i <= last; i++ {
		var data []byte
		var c *call
		if el, ok := f.blocks[i]; ok {
			if each != nil {
				f.lru.MoveToFront(el)
			}
			data = el.Value.(*block).data
			cur = nil
		} else if c, ok = f.inflight[i]; ok {
			cur = nil
		} else {
			if cur == nil {
				cur = &call{start: i * bs, done: make(chan struct{})}
				runs = append(runs, cur)
			}
			cur.end = min((i+1)*bs, f.size)
			c = cur
		}
		if each != nil {
			each(i, data, c)
		}
	}
	return runs
}

// register makes the reads of the whole blocks of c wait for it; f.mu is
// held.
func (f *File) register(c *call) {
	bs := int64(f.cfg.block)
	for i := c.start / bs; i*bs < c.end; i++ {
		if i*bs >= c.start && min((i+1)*bs, f.size) <= c.end {
			f.inflight[i] = c
		}
	}
}

// fetch runs the request c and publishes its whole blocks in the cache.
func (f *File) fetch(c *call) {
	c.data, c.err = f.get(c.start, c.end, false)
	bs := int64(f.cfg.block)
	// The cache holds copies: a block must not keep a large request's
	// buffer alive, or the cache's bound would not bound memory.
	first := (c.start + bs - 1) / bs
	var copies [][]byte
	for i := first; c.err == nil && i*bs < c.end && min((i+1)*bs, f.size) <= c.end; i++ {
		copies = append(copies, bytes.Clone(c.data[i*bs-c.start:min((i+1)*bs, f.size)-c.start]))
	}
	f.mu.Lock()
	for i := c.start / bs; i*bs < c.end; i++ {
		if f.inflight[i] != c {
			continue
		}
		delete(f.inflight, i) // registered blocks are whole: i >= first
		if c.err == nil && !f.closed {
			f.put(i, copies[i-first])
		}
	}
	f.mu.Unlock()
	close(c.done)
}

// put caches block i; f.mu is held.
func (f *File) put(i int64, data []byte) {
	if el, ok := f.blocks[i]; ok {
		f.lru.MoveToFront(el)
		return
	}
	f.blocks[i] = f.lru.PushFront(&block{idx: i, data: data})
	for f.lru.Len() > f.maxBlocks {
		el := f.lru.Back()
		f.lru.Remove(el)
		delete(f.blocks, el.Value.(*block).idx)
	}
}

// seqTrigger is the number of sequential reads in a row that must miss the
// cache before read-ahead starts: opening a package reads its header, its
// section table, its object table and its names in a row, which must not
// start it.
const seqTrigger = 3

// noteRead records the read [off, end) and returns the read-ahead it
// starts, if any; f.mu is held.
func (f *File) noteRead(off, end int64, missed bool) []*call {
	bs := int64(f.cfg.block)
	seq := false
	for _, e := range f.ends {
		if e > 0 && off >= e-bs && off <= e+bs {
			seq = true
			break
		}
	}
	f.ends[f.endPos%len(f.ends)] = end
	f.endPos++
	if !seq {
		if missed {
			f.seq = 0
		}
		return nil
	}
	if missed {
		f.seq++
	}
	// Once started, the read-ahead goes on while the reads near its end,
	// or overtake it.
	inWindow := f.raWin > 0 && (missed || off < f.raEnd+bs && end >= f.raEnd-f.raWin/2)
	if f.seq < seqTrigger && !inWindow || f.raRunning >= 2 {
		return nil
	}
	maxWin := max(int64(f.cfg.cache)/4, bs)
	win := min(max(2*f.raWin, 16*bs), maxWin)
	from := (end + bs - 1) / bs * bs
	if inWindow {
		from = max(from, f.raEnd)
	}
	if from >= f.size {
		return nil
	}
	to := min(from+win, f.size)
	f.seq, f.raWin, f.raEnd = 0, win, to

	runs := f.plan(from/bs, (to-1)/bs, nil)
	for _, c := range runs {
		f.register(c)
	}
	if len(runs) == 0 {
		return nil
	}
	f.raRunning++
	f.wg.Add(1)
	return runs
}

// prefetch fetches read-ahead requests.
func (f *File) prefetch(runs []*call) {
	defer f.wg.Done()
	for _, c := range runs {
		f.fetch(c)
	}
	f.mu.Lock()
	f.raRunning--
	f.mu.Unlock()
}

// get fetches the bytes [off, end) with retries, within the request
// timeout. For the head request (head set) it learns the size and pins the
// validator, and accepts a file shorter than end.
func (f *File) get(off, end int64, head bool) ([]byte, error) {
	ctx, cancel := context.WithTimeoutCause(f.ctx, f.cfg.request,
		fmt.Errorf("%w: not done within %v (request timeout)", ErrTimeout, f.cfg.request))
	defer cancel()
	fail := func(status int, err error) ([]byte, error) {
		return nil, &Error{URL: f.name, Off: off, End: end, Status: status, Err: err}
	}
	delay := f.cfg.backoff
	for attempt := 0; ; attempt++ {
		data, status, retry, err := f.try(ctx, off, end, head)
		if err == nil {
			return data, nil
		}
		if cerr := f.ctx.Err(); cerr != nil {
			if !errors.Is(err, cerr) {
				err = fmt.Errorf("%w: %w", cerr, err)
			}
			return fail(status, err)
		}
		if !retry || attempt >= f.cfg.retries {
			if retry && attempt > 0 {
				err = fmt.Errorf("%w (after %d retries)", err, attempt)
			}
			return fail(status, err)
		}
		wait := delay
		if se := (*statusError)(nil); errors.As(err, &se) {
			wait = max(wait, se.after)
		}
		if deadline, _ := ctx.Deadline(); time.Until(deadline) < wait {
			return fail(status, fmt.Errorf("%w (after %d retries; %w: the next, in %v, would pass the request timeout %v)",
				err, attempt, ErrTimeout, wait, f.cfg.request))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fail(status, fmt.Errorf("%w (while waiting to retry: %v)", context.Cause(ctx), err))
		case <-t.C:
		}
		delay *= 2
	}
}

// try sends one request for [off, end), ended by the idle timeout if the
// server stays silent, and reports whether its failure may be retried: a
// request that timed out may not.
func (f *File) try(ctx context.Context, off, end int64, head bool) (data []byte, status int, retry bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(f.cfg.idle, func() {
		cancel(idleError(f.cfg.idle))
	})
	defer idle.Stop()
	data, status, retry, err = f.do(ctx, idle, off, end, head)
	if err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) {
			retry = false
			if !errors.Is(err, ErrTimeout) {
				err = fmt.Errorf("%w (%v)", cause, err)
			}
		}
	}
	return data, status, retry, err
}

// do sends one request for [off, end) and reads its answer, resetting the
// timer idle on each sign of the server's life.
func (f *File) do(ctx context.Context, idle *time.Timer, off, end int64, head bool) (data []byte, status int, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return nil, 0, false, err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, end-1))
	req.Header.Set("Accept-Encoding", "identity")
	conditional := false
	switch {
	case head:
	case f.etag != "":
		req.Header.Set("If-Range", f.etag)
		req.Header.Set("If-Match", f.etag)
		conditional = true
	case f.lastMod != "":
		req.Header.Set("If-Range", f.lastMod)
		req.Header.Set("If-Unmodified-Since", f.lastMod)
		conditional = true
	}
	f.mu.Lock()
	f.stats.Requests++
	f.mu.Unlock()
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, 0, !permanent(err), err
	}
	defer resp.Body.Close()
	idle.Reset(f.cfg.idle)
	if head {
		f.final = resp.Request.URL
	}
	status = resp.StatusCode
	h := resp.Header
	if status == http.StatusPartialContent || status == http.StatusOK {
		if err := identity(h); err != nil {
			return nil, status, false, err
		}
	}
	switch {
	case status == http.StatusPartialContent:
		first, last, total, err := parseContentRange(h.Get("Content-Range"))
		if err != nil {
			return nil, status, false, err
		}
		if head {
			if total < 0 {
				return nil, status, false, fmt.Errorf("%w: Content-Range %q gives no size", ErrProtocol, h.Get("Content-Range"))
			}
			end = min(end, total)
		} else if err := f.same(h, total); err != nil {
			return nil, status, false, err
		}
		if first != off || last != end-1 {
			return nil, status, false, fmt.Errorf("%w: Content-Range %q for bytes %d-%d", ErrProtocol, h.Get("Content-Range"), off, end-1)
		}
		if head {
			f.pin(h)
			f.size = total
		}
		if resp.ContentLength >= 0 && resp.ContentLength != end-off {
			return nil, status, false, fmt.Errorf("%w: Content-Length %d for %d bytes", ErrProtocol, resp.ContentLength, end-off)
		}
		data, err = f.body(resp.Body, end-off, false, idle)
		return data, status, !errors.Is(err, ErrProtocol), err
	case status == http.StatusOK && head:
		// A whole small file is fine; a large one means no Range support.
		if resp.ContentLength > end {
			return nil, status, false, fmt.Errorf("%w: 200 with %d bytes", ErrNoRange, resp.ContentLength)
		}
		data, err = f.body(resp.Body, end, true, idle)
		if err != nil {
			return nil, status, !errors.Is(err, ErrNoRange), err
		}
		if resp.ContentLength >= 0 && int64(len(data)) != resp.ContentLength {
			return nil, status, true, fmt.Errorf("short body: %d of %d bytes: %w", len(data), resp.ContentLength, io.ErrUnexpectedEOF)
		}
		f.pin(h)
		f.size = int64(len(data))
		return data, status, false, nil
	case status == http.StatusOK && conditional && f.unchanged(h):
		// The pinned validator still holds: the server ignored Range.
		return nil, status, false, fmt.Errorf("%w: 200 to a Range request", ErrNoRange)
	case status == http.StatusOK && conditional:
		return nil, status, false, fmt.Errorf("%w: 200 to If-Range %s", ErrChanged, req.Header.Get("If-Range"))
	case status == http.StatusOK:
		return nil, status, false, fmt.Errorf("%w: 200 to a Range request", ErrNoRange)
	case status == http.StatusRequestedRangeNotSatisfiable && head:
		// An empty file has no byte 0.
		if cr := h.Get("Content-Range"); cr == "bytes */0" {
			f.pin(h)
			return nil, status, false, nil
		}
		return nil, status, false, fmt.Errorf("%w: 416 with Content-Range %q", ErrProtocol, h.Get("Content-Range"))
	case status == http.StatusPreconditionFailed, status == http.StatusRequestedRangeNotSatisfiable:
		return nil, status, false, fmt.Errorf("%w: %s", ErrChanged, resp.Status)
	case status == http.StatusNotFound, status == http.StatusGone:
		return nil, status, false, fmt.Errorf("%s: %w", resp.Status, fs.ErrNotExist)
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return nil, status, false, fmt.Errorf("%s: %w", resp.Status, fs.ErrPermission)
	case transient(status):
		return nil, status, true, &statusError{resp.Status, retryAfter(h)}
	default:
		return nil, status, false, fmt.Errorf("unexpected status %s", resp.Status)
	}
}

// body reads n bytes of r, and checks that nothing follows, resetting the
// timer idle after each read that returns bytes. With upTo, fewer bytes
// are fine and more mean ErrNoRange.
func (f *File) body(r io.Reader, n int64, upTo bool, idle *time.Timer) ([]byte, error) {
	buf := make([]byte, n+1)
	got := 0
	var err error
	for got < len(buf) && err == nil {
		var m int
		m, err = r.Read(buf[got:])
		if m > 0 {
			got += m
			idle.Reset(f.cfg.idle)
		}
	}
	if err == io.EOF && got > 0 && got < len(buf) {
		err = io.ErrUnexpectedEOF // as io.ReadFull
	}
	f.mu.Lock()
	f.stats.Bytes += int64(got)
	f.mu.Unlock()
	switch {
	case int64(got) > n && upTo:
		return nil, fmt.Errorf("%w: 200 with more than %d bytes", ErrNoRange, n)
	case int64(got) > n:
		return nil, fmt.Errorf("%w: body longer than %d bytes", ErrProtocol, n)
	case int64(got) == n || upTo && (err == io.ErrUnexpectedEOF || err == io.EOF):
		return buf[:got], nil
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return nil, fmt.Errorf("short body: %d of %d bytes: %w", got, n, io.ErrUnexpectedEOF)
	case err != nil:
		return nil, fmt.Errorf("body after %d bytes: %w", got, err)
	}
	return nil, fmt.Errorf("short body: %d of %d bytes: %w", got, n, io.ErrUnexpectedEOF)
}
