// Command xzdecode is bench/lzma-vs-xz.sh's pure-Go side: it extracts the
// xz sections of a BPX package, and it decodes .xz streams with
// internal/xzdec, the decoder whose speed the script compares with xz(1)
// and 7-Zip.
//
// Usage:
//
//	xzdecode extract PKG OUT   # OUT: the xz sections' streams, concatenated;
//	                           # OUT.sizes: "STORED DECODED" per stream
//	xzdecode FILE              # decodes FILE to stdout
//
// FILE is the streams listed in FILE.sizes, one after the other, or else
// one stream of at most 1 GiB (FILE.sizes gives a better bound).
// XZDECODE_CPUPROFILE=FILE writes a CPU profile of the decoding. Each is decoded whole into one reused
// buffer, as bpx reads an xz section.
package main

import (
	"bufio"
	"fmt"
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
	case len(os.Args) == 2:
		if prof := os.Getenv("XZDECODE_CPUPROFILE"); prof != "" {
			f, err := os.Create(prof)
			if err != nil {
				fmt.Fprintln(os.Stderr, "xzdecode:", err)
				os.Exit(1)
			}
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		err = decode(os.Args[1])
	default:
		fmt.Fprintln(os.Stderr, "usage: xzdecode extract PKG OUT | xzdecode FILE")
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

func decode(name string) error {
	in, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	type stream struct{ stored, usize int }
	streams := []stream{{len(in), 1 << 30}}
	if f, err := os.Open(name + ".sizes"); err == nil {
		streams = streams[:0]
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var s stream
			if _, err := fmt.Sscan(sc.Text(), &s.stored, &s.usize); err != nil {
				return err
			}
			streams = append(streams, s)
		}
		f.Close()
	}
	var d xzdec.Decoder
	most := 0
	for _, s := range streams {
		most = max(most, s.usize)
	}
	out := make([]byte, 0, most) // as bpx does, knowing the section's size
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for i, s := range streams {
		if s.stored > len(in) {
			return fmt.Errorf("stream %d: %d bytes stored, %d left", i, s.stored, len(in))
		}
		if out, err = d.Decode(out[:0], in[:s.stored], s.usize); err != nil {
			return fmt.Errorf("stream %d: %w", i, err)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
		in = in[s.stored:]
	}
	return w.Flush()
}
