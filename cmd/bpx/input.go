package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// isURL reports whether name is an http:// or https:// URL rather than a
// file name.
func isURL(name string) bool {
	return strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://")
}

// The timeouts of the requests for URLs: a server that stays silent for
// half a minute fails the command instead of hanging it, and so does one
// whose answer to one request (at most a few MiB: a block, the head or a
// read-ahead window) is not done within five minutes, such as a server
// sending its body a byte at a time. Five minutes, not one, so that a slow
// but working link (15 KB/s) still reads a read-ahead window. Variables
// for the tests.
var (
	remoteIdleTimeout    = 30 * time.Second
	remoteRequestTimeout = 5 * time.Minute
)

// remoteOptions are the options of the commands' remote reads.
func remoteOptions() []remote.Option {
	return []remote.Option{remote.WithIdleTimeout(remoteIdleTimeout), remote.WithRequestTimeout(remoteRequestTimeout)}
}

// openInput opens the file name, or reads the http(s) URL name with range
// requests. Closing it with close releases either.
func openInput(name string) (r io.ReaderAt, size int64, close func() error, err error) {
	if isURL(name) {
		f, err := remote.Open(context.Background(), name, remoteOptions()...)
		if err != nil {
			return nil, 0, nil, err
		}
		return f, f.Size(), f.Close, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	return f, fi.Size(), f.Close, nil
}

// container is an opened BPX file, local or remote.
type container struct {
	*bpx.Reader
	close func() error
}

// Close closes the file.
func (c *container) Close() error { return c.close() }

// openContainer opens the BPX file or URL name.
func openContainer(name string) (*container, error) {
	if !isURL(name) {
		rc, err := bpx.OpenReader(name)
		if err != nil {
			return nil, err
		}
		return &container{&rc.Reader, rc.Close}, nil
	}
	r, size, closeInput, err := openInput(name)
	if err != nil {
		return nil, err
	}
	rd, err := bpx.NewReader(r, size)
	if err != nil {
		closeInput()
		return nil, err
	}
	return &container{rd, closeInput}, nil
}

// openSigned opens the BPX file or URL name, which must be signed by a
// key of trusted: its sections then read through the returned Verified,
// which returns only bytes that match what the key signed.
func openSigned(name string, trusted *sign.KeyRing) (*container, *sign.Verified, error) {
	r, size, closeInput, err := openInput(name)
	if err != nil {
		return nil, nil, err
	}
	v, err := sign.Open(r, size, trusted)
	if err != nil {
		closeInput()
		return nil, nil, err
	}
	rd, err := bpx.NewReader(v, size)
	if err != nil {
		closeInput()
		return nil, nil, err
	}
	return &container{rd, closeInput}, v, nil
}

// packageFile is an opened package, local or remote.
type packageFile struct {
	*pack.Package
	closeInput func() error // nil for a local file, which Package.Close closes
}

// Close closes the package and its file.
func (p *packageFile) Close() error {
	err := p.Package.Close()
	if p.closeInput != nil {
		err = errors.Join(err, p.closeInput())
	}
	return err
}

// openTrusted opens the package file or URL name; with trusted keys (not
// nil) it must be signed by one of them, and every byte read of it is
// checked against what the key signed (pack.WithTrustedKeys). Its errors
// name the file.
func openTrusted(name string, trusted *sign.KeyRing) (*packageFile, error) {
	if trusted == nil {
		return openPack(name)
	}
	p, err := openPack(name, pack.WithTrustedKeys(trusted))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// openPack opens the package file or URL name.
func openPack(name string, opts ...pack.Option) (*packageFile, error) {
	if !isURL(name) {
		p, err := pack.Open(name, opts...)
		if err != nil {
			return nil, err
		}
		return &packageFile{Package: p}, nil
	}
	r, size, closeInput, err := openInput(name)
	if err != nil {
		return nil, err
	}
	p, err := pack.NewReader(r, size, opts...)
	if err != nil {
		closeInput()
		return nil, err
	}
	return &packageFile{p, closeInput}, nil
}
