package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/gobpx/bpx/cmd/internal/explorer"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
)

// serveContext is the context "bpx serve" serves until, besides an
// interrupt; tests replace it to stop the server.
var serveContext = context.Background

// serveFlags are the flags of "bpx serve".
type serveFlags struct {
	addr   string
	open   bool
	layers layerList
}

func setupServe(fs *flag.FlagSet) func(*env, []string) int {
	var f serveFlags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fs.BoolVar(&f.open, "open", false, "open the page in the default browser")
	defineLayers(fs, &f.layers)
	return f.run
}

func (f *serveFlags) run(e *env, pos []string) int {
	if len(pos) == 0 {
		return e.usageError("want at least one FILE")
	}
	if len(f.layers) > 0 && len(pos) != 1 {
		return e.usageError("with -L, want exactly one PACKAGE")
	}
	names := append(pos, f.layers...)
	files := make([]explorer.File, 0, len(names))
	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for _, name := range names {
		r, size, closeInput, err := openInput(name)
		if err != nil {
			return e.fail(err)
		}
		closers = append(closers, closeInput)
		files = append(files, explorer.File{Name: name, R: r, Size: size})
	}
	var opts []explorer.Option
	if len(f.layers) > 0 {
		opts = append(opts, explorer.WithLayers())
	}
	host, _, err := net.SplitHostPort(f.addr)
	if err != nil {
		return e.usageError("--addr %q: %v", f.addr, err)
	}
	if host != "" {
		opts = append(opts, explorer.WithHosts(host))
	}
	srv, err := explorer.New(files, opts...)
	if err != nil {
		return e.fail(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return e.fail(err)
	}
	url := "http://" + browsable(ln.Addr()) + "/"
	fmt.Fprintf(e.Stdout, "serving %s\n", url)
	if f.open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(e.Stderr, "bpx serve: cannot open a browser (%s); open %s\n", termsafe.Message(err.Error()), url)
		}
	}
	ctx, stop := signal.NotifyContext(serveContext(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// No ReadTimeout or WriteTimeout: they would cut long downloads and
	// cancel long previews; the explorer sets a write deadline that moves
	// on as bytes go out, and a request has no body to read.
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 1 << 20}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return e.fail(err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return e.fail(err)
	}
	return exitOK
}

// openBrowser opens url in the desktop's default browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// browsable is the address a browser on this machine reaches addr at:
// addr itself, or 127.0.0.1 with its port when it listens on every
// address (--addr :8080 or 0.0.0.0:8080).
func browsable(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return addr.String()
}
