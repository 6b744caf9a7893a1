package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/pull"
)

// pullFlags are the flags of "bpx pull".
type pullFlags struct {
	quiet   bool
	seeds   layerList
	jobs    int
	trusted trustedFlag
}

func setupPull(fs *flag.FlagSet) func(*env, []string) int {
	var f pullFlags
	fs.BoolVar(&f.quiet, "q", false, "no progress line")
	fs.Var(&f.seeds, "seed", "also take chunks from the local `FILE` (repeatable): another version of the package, or another package")
	fs.IntVar(&f.jobs, "j", pull.DefaultConcurrency, "`N` requests in flight at once (1 to 32)")
	f.trusted.define(fs, "the new package")
	return f.run
}

func (f *pullFlags) run(e *env, pos []string) int {
	if len(pos) != 2 {
		return e.usageError("want URL and LOCAL")
	}
	ring, err := f.trusted.ring()
	if err != nil {
		return e.fail(err)
	}
	opts := []pull.Option{pull.WithSeeds(f.seeds...), pull.WithConcurrency(f.jobs)}
	if ring != nil {
		opts = append(opts, pull.WithTrustedKeys(ring))
	}
	var bar *progress
	var phase string
	var done int64 // of the phase, as reported
	opts = append(opts, pull.WithProgress(func(p pull.Progress) {
		if p.Phase != phase {
			if bar != nil {
				bar.Done()
			}
			phase, done = p.Phase, 0
			bar = newProgress(e, f.quiet, p.Total, map[string]string{"scan": "reading local files", "fetch": "fetching"}[p.Phase])
		}
		bar.Add(p.Done - done)
		done = p.Done
	}))
	src, local := pos[0], pos[1]
	var res *pull.Result
	err = interruptible(func(ctx context.Context) error {
		var err error
		if isURL(src) {
			res, err = pull.PullURL(ctx, src, local, remoteOptions(), opts...)
		} else {
			res, err = pullFile(ctx, src, local, opts)
		}
		return err
	})
	if bar != nil {
		bar.Done()
	}
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintln(e.Stdout, pullSummary(termsafe.Name(local), res))
	return exitOK
}

// pullFile pulls from a local file (a mounted share, say).
func pullFile(ctx context.Context, src, local string, opts []pull.Option) (*pull.Result, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return pull.Pull(ctx, io.NewSectionReader(f, 0, fi.Size()), local, opts...)
}

// pullSummary is the line bpx pull prints.
func pullSummary(name string, r *pull.Result) string {
	switch {
	case r.UpToDate:
		return fmt.Sprintf("%s: up to date (%s, %s)", name, formatBytes(r.Fetched)+" fetched", plural(r.Requests, "request"))
	case r.Whole:
		return fmt.Sprintf("%s: downloaded whole, %s in %s (the package has no chunk digests)", name, formatBytes(r.Fetched), plural(r.Requests, "request"))
	}
	line := fmt.Sprintf("%s: updated, fetched %s, %s copied from local files", name, fetchFigures(r), formatBytes(r.Copied))
	if r.Resumed > 0 {
		line += fmt.Sprintf(", %s kept from an interrupted pull", formatBytes(r.Resumed))
	}
	return line
}

// fetchFigures says what a pull fetched, or would: "X of Y (P%) in N
// requests".
func fetchFigures(r *pull.Result) string {
	pct := 0.0
	if r.Size > 0 {
		pct = 100 * float64(r.Fetched) / float64(r.Size)
	}
	return fmt.Sprintf("%s of %s (%.1f%%) in %s", formatBytes(r.Fetched), formatBytes(r.Size), pct, plural(r.Requests, "request"))
}
