// Command xzdecode is bench/lzma-vs-xz.sh's pure-Go side: it extracts the
// xz sections of a BPX package, and it decodes .xz streams with
// internal/xzdec, the decoder whose speed the script compares with xz(1)
// and 7-Zip.
//
// Usage:
//
//	xzdecode extract PKG OUT    # OUT: the xz sections' streams, concatenated;
//	                            # OUT.sizes: "STORED DECODED" per stream
//	xzdecode [-mode M] FILE     # decodes FILE to stdout
//
// FILE is the streams listed in FILE.sizes, one after the other, or else
// one stream of at most 1 GiB (FILE.sizes gives a better bound). The
// mode is the decoder's:
//
//	flat    Decoder.Decode, each stream whole into one reused buffer, as
//	        bpx reads an xz section up to 4 MiB (the default)
//	stream  Reader, from the file, in bounded memory, as for larger ones
//	steps   Decoder.Start and DecodeTo in 64 KiB steps, the resumable
//	        decoder that reads objects only as far as they end
//
// XZDECODE_CPUPROFILE=FILE writes a CPU profile of the decoding.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/xzdec"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "extract":
		err = extract(os.Args[2], os.Args[3])
	case len(os.Args) == 2 || len(os.Args) == 4 && os.Args[1] == "-mode":
		if prof := os.Getenv("XZDECODE_CPUPROFILE"); prof != "" {
			f, err := os.Create(prof)
			if err != nil {
				fmt.Fprintln(os.Stderr, "xzdecode:", err)
				os.Exit(1)
			}
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		mode := "flat"
		if len(os.Args) == 4 {
			mode = os.Args[2]
		}
		err = decode(os.Args[len(os.Args)-1], mode)
	default:
		fmt.Fprintln(os.Stderr, "usage: xzdecode extract PKG OUT | xzdecode [-mode flat|stream|steps] FILE")
		os.Exit(2)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "xzdecode:", err)
		os.Exit(1)
	}
}

func extract(pkg, out string) error {
	rd, err := bpx.OpenReader(pkg)
	if err != nil {
		return err
	}
	defer rd.Close()
	var all []byte
	var sizes []byte
	for _, s := range rd.Sections {
		if s.Flags&bpx.FlagXZ == 0 {
			continue
		}
		raw := make([]byte, s.StoredSize())
		if _, err := s.OpenRaw().ReadAt(raw, 0); err != nil {
			return fmt.Errorf("section %d: %w", s.Index, err)
		}
		all = append(all, raw...)
		sizes = fmt.Appendf(sizes, "%d %d\n", len(raw), s.USize)
	}
	if err := os.WriteFile(out+".sizes", sizes, 0o644); err != nil {
		return err
	}
	return os.WriteFile(out, all, 0o644)
}

func decode(name, mode string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	type stream struct{ stored, usize int }
	streams := []stream{{int(fi.Size()), 1 << 30}}
	if sf, err := os.Open(name + ".sizes"); err == nil {
		streams = streams[:0]
		sc := bufio.NewScanner(sf)
		for sc.Scan() {
			var s stream
			if _, err := fmt.Sscan(sc.Text(), &s.stored, &s.usize); err != nil {
				return err
			}
			streams = append(streams, s)
		}
		sf.Close()
	}
	most := 0
	for _, s := range streams {
		most = max(most, s.usize)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var d xzdec.Decoder
	var r xzdec.Reader
	var in []byte
	if mode != "stream" {
		in = make([]byte, fi.Size())
		if _, err = io.ReadFull(f, in); err != nil {
			return err
		}
	}
	out := make([]byte, 0, most) // as bpx does, knowing the section's size
	off := 0
	for i, s := range streams {
		if s.stored > int(fi.Size())-off {
			return fmt.Errorf("stream %d: %d bytes stored, %d left", i, s.stored, int(fi.Size())-off)
		}
		switch mode {
		case "flat":
			if out, err = d.Decode(out[:0], in[off:off+s.stored], s.usize); err != nil {
				return fmt.Errorf("stream %d: %w", i, err)
			}
			if _, err := w.Write(out); err != nil {
				return err
			}
		case "stream":
			r.Reset(io.NewSectionReader(f, int64(off), int64(s.stored)), 0)
			if _, err := w.ReadFrom(&r); err != nil {
				return fmt.Errorf("stream %d: %w", i, err)
			}
		case "steps":
			d.Start(out[:0], in[off:off+s.stored], s.usize)
			done := 0
			for n := 64 << 10; !d.Done(); n += 64 << 10 {
				if out, err = d.DecodeTo(n); err != nil {
					return fmt.Errorf("stream %d: %w", i, err)
				}
				if _, err := w.Write(out[done:]); err != nil {
					return err
				}
				done = len(out)
			}
		default:
			return fmt.Errorf("unknown mode %q", mode)
		}
		off += s.stored
	}
	return w.Flush()
}
