package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gobpx/bpx"
)

// interruptDoc ends the help of the commands that write files (through
// interruptible): what an interruption leaves, and what a kill can.
const interruptDoc = `

Interrupted (Ctrl-C: SIGINT, or SIGTERM), the command removes its
temporary files, leaves the file it writes as it was and exits with status
130 or 143. Killed (kill -9, a crash, a second signal), it may leave them:
.NAME.tmp-* beside the file NAME, and bpx-pack-*, bpx-spool-* and bpx-sign-*
in $TMPDIR (else /tmp): delete them when no bpx runs.`

// interrupted is the error of a writing command stopped by a signal.
type interrupted struct{ sig os.Signal }

func (*interrupted) Error() string { return "interrupted" }

// status is the exit status of a command stopped by the signal: 128 + its
// number (130 for SIGINT, 143 for SIGTERM), as shells expect.
func (i *interrupted) status() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFail
}

// interruptStatus returns the exit status of err when it says that the
// command was interrupted.
func interruptStatus(err error) (int, bool) {
	var i *interrupted
	if errors.As(err, &i) {
		return i.status(), true
	}
	return 0, false
}

// interruptible runs write, the part of a command that writes files, so
// that SIGINT or SIGTERM does not kill bpx halfway through, leaving its
// temporary files (".NAME.tmp-*" beside the output, "bpx-pack-*" and
// "bpx-spool-*" in $TMPDIR): the signal cancels the context write gets,
// which the writers it passes the context to (pack.WithContext), or the
// writer saveFile gives, turn into a failure at their next write (within
// milliseconds for a pack or an edit); that removes the temporary files
// and leaves the output as it was. If
// write then fails, interruptible returns an *interrupted, which env.fail
// prints as "interrupted" with exit status 130 or 143; if it succeeded
// despite the signal (it was already renaming), its result stands.
//
// A second signal kills bpx at once, as kill -9 does, for a command that
// cannot stop (waiting for another edit's lock, say): it may leave
// temporary files, which the help of the writing commands names.
func interruptible(write func(ctx context.Context) error) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // the next one kills bpx
			cancel(&interrupted{sig})
		case <-done:
		}
	}()
	err := write(ctx)
	close(done)
	var i *interrupted
	if err != nil && errors.As(context.Cause(ctx), &i) {
		return i
	}
	return err
}

// saveFile is bpx.SaveFile run by interruptible: write gets the context
// and a writer that fails once the context is done.
func saveFile(name string, write func(ctx context.Context, w io.Writer) error) error {
	return interruptible(func(ctx context.Context) error {
		return bpx.SaveFile(name, func(w io.Writer) error { return write(ctx, ctxWriter{ctx, w}) })
	})
}

// ctxWriter is a writer whose writes fail once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.w.Write(p)
}
