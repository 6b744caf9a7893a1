package xzenc

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	uxz "github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// sourceSections returns 8 MiB of Go source cut into 1 MiB sections, like
// a package's data sections.
func sourceSections(b *testing.B) [][]byte {
	all := gocorpus.Source(8 << 20)
	var secs [][]byte
	for i := range 8 {
		secs = append(secs, all[i<<20:(i+1)<<20])
	}
	return secs
}

// BenchmarkEncode compares this encoder with ulikunitz/xz's hash-table
// encoder (the baseline: what bpx used before) on the same sections, one
// core each.
func BenchmarkEncode(b *testing.B) {
	secs := sourceSections(b)
	b.Run("xzenc", func(b *testing.B) { encodeAll(b, secs, (&Encoder{}).with1MiB) })
	b.Run("baseline-ulikunitz", func(b *testing.B) {
		encodeAll(b, secs, func(w io.Writer, s []byte) error {
			uw, err := uxz.WriterConfig{DictCap: 1 << 20, NoCheckSum: true, Matcher: lzma.HashTable4}.NewWriter(w)
			if err != nil {
				return err
			}
			uw.Write(s)
			return uw.Close()
		})
	})
}

// BenchmarkEncodeLarge encodes one 24 MiB section as the bpx writer does
// (256 KiB dictionary, data given to Write in 32 KiB pieces) with this
// encoder's window and with ulikunitz/xz's streaming hash-table encoder
// (the baseline: what bpx used above 16 MiB before).
func BenchmarkEncodeLarge(b *testing.B) {
	const size, dict = 24 << 20, 256 << 10
	data := longInput(size)
	write := func(w io.Writer) {
		for p := data; len(p) > 0; p = p[min(32<<10, len(p)):] {
			if _, err := w.Write(p[:min(32<<10, len(p))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	var out bytes.Buffer
	b.Run("xzenc-window", func(b *testing.B) {
		b.SetBytes(size)
		var e Encoder
		for b.Loop() {
			out.Reset()
			if err := e.Reset(&out, dict, size); err != nil {
				b.Fatal(err)
			}
			write(&e)
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(out.Len())/size, "ratio")
	})
	b.Run("baseline-ulikunitz", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			out.Reset()
			w, err := uxz.WriterConfig{DictCap: dict, NoCheckSum: true, Matcher: lzma.HashTable4}.NewWriter(&out)
			if err != nil {
				b.Fatal(err)
			}
			write(w)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(out.Len())/size, "ratio")
	})
}

// BenchmarkEncodeDepth encodes the sections of BenchmarkEncode at several
// search depths (see DefaultDepth); "ratio" is the stream's size over the
// data's.
func BenchmarkEncodeDepth(b *testing.B) {
	secs := sourceSections(b)
	for _, depth := range []int{8, 16, 32} {
		e := &Encoder{Options: Options{Depth: depth}}
		b.Run(fmt.Sprintf("depth-%d", depth), func(b *testing.B) { encodeAll(b, secs, e.with1MiB) })
	}
}

func (e *Encoder) with1MiB(w io.Writer, s []byte) error { return e.Encode(w, s, 1<<20) }

// xzSize returns the total size of xz(1)'s streams of secs at the given
// arguments, one stream per section, or 0 when xz is not installed.
func xzSize(b *testing.B, secs [][]byte, args ...string) int {
	path, err := exec.LookPath("xz")
	if err != nil {
		return 0
	}
	total := 0
	for _, s := range secs {
		cmd := exec.Command(path, append([]string{"-c", "--check=none"}, args...)...)
		cmd.Stdin = bytes.NewReader(s)
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		total += len(out)
	}
	return total
}

// BenchmarkPresets encodes Go source in sections (1 MiB with a 1 MiB
// dictionary, and 4 MiB with a 4 MiB one) with each preset and reports
// the ratio (output over input), "vs-xz6" (output over that of
// xz --block-size -6 on the same sections, when xz is installed) and
// "x-fast" (speed relative to PresetFast, measured first in the same
// run).
func BenchmarkPresets(b *testing.B) {
	all := gocorpus.Source(8 << 20)
	for _, secSize := range []int{1 << 20, 4 << 20} {
		var secs [][]byte
		for p := 0; p < len(all); p += secSize {
			secs = append(secs, all[p:p+secSize])
		}
		xz6 := xzSize(b, secs, "-6", fmt.Sprintf("--block-size=%d", secSize))
		var fastNs float64
		for _, c := range []struct {
			name string
			o    Options
		}{{"fast", PresetFast}, {"default", PresetDefault}, {"max", PresetMax}} {
			b.Run(fmt.Sprintf("%s-%dMiB", c.name, secSize>>20), func(b *testing.B) {
				e := &Encoder{Options: c.o}
				size, ns := encodeAll(b, secs, func(w io.Writer, s []byte) error { return e.Encode(w, s, secSize) })
				if c.name == "fast" {
					fastNs = ns
				} else if fastNs > 0 {
					b.ReportMetric(fastNs/ns, "x-fast")
				}
				if xz6 > 0 {
					b.ReportMetric(float64(size)/float64(xz6), "vs-xz6")
				}
			})
		}
	}
}

// encodeAll encodes every section with encode, reports the ratio and
// returns the output's size and the time per loop: CPU time where the
// platform gives it (steadier than the wall time on a shared machine),
// else wall time.
func encodeAll(b *testing.B, secs [][]byte, encode func(io.Writer, []byte) error) (int, float64) {
	total := 0
	for _, s := range secs {
		total += len(s)
	}
	b.SetBytes(int64(total))
	var out bytes.Buffer
	size := 0
	cpu := cpuTime()
	for b.Loop() {
		size = 0
		for _, s := range secs {
			out.Reset()
			if err := encode(&out, s); err != nil {
				b.Fatal(err)
			}
			size += out.Len()
		}
	}
	ns := float64(cpuTime() - cpu)
	if ns <= 0 {
		ns = float64(b.Elapsed().Nanoseconds())
	}
	b.ReportMetric(float64(size)/float64(total), "ratio")
	b.ReportMetric(ns/float64(b.N), "cpu-ns/op")
	return size, ns / float64(b.N)
}

// BenchmarkMaxParams: candidates for PresetMax on 4 MiB sections with a
// 4 MiB dictionary.
func BenchmarkMaxParams(b *testing.B) {
	all := gocorpus.Source(8 << 20)
	secs := [][]byte{all[:4<<20], all[4<<20:]}
	xz6 := xzSize(b, secs, "-6", "--block-size=4MiB")
	var fastNs float64
	b.Run("fast", func(b *testing.B) {
		e := &Encoder{}
		_, fastNs = encodeAll(b, secs, func(w io.Writer, s []byte) error { return e.Encode(w, s, 4<<20) })
	})
	for _, o := range []Options{
		{Mode: Normal, MatchFinder: BT4, NiceLen: 48, Depth: 16},
		{Mode: Normal, MatchFinder: BT4, NiceLen: 64, Depth: 32},
		{Mode: Normal, MatchFinder: BT4, NiceLen: 64, Depth: 48},
		{Mode: Normal, MatchFinder: BT4, NiceLen: 96, Depth: 48},
		{Mode: Normal, MatchFinder: BT4, NiceLen: 128, Depth: 64},
		{Mode: Normal, MatchFinder: BT4, NiceLen: 273, Depth: 128},
	} {
		b.Run(fmt.Sprintf("bt4-nice%d-depth%d", o.NiceLen, o.Depth), func(b *testing.B) {
			e := &Encoder{Options: o}
			size, ns := encodeAll(b, secs, func(w io.Writer, s []byte) error { return e.Encode(w, s, 4<<20) })
			b.ReportMetric(fastNs/ns, "x-fast")
			b.ReportMetric(float64(size)/float64(xz6), "vs-xz6")
		})
	}
}

// BenchmarkNormalParams encodes the sections of BenchmarkEncode in Normal
// mode over a grid of match finder, NiceLen and Depth, with "x-fast" and
// "vs-xz6" as in BenchmarkPresets: the Pareto points the presets were
// chosen from.
func BenchmarkNormalParams(b *testing.B) {
	secs := sourceSections(b)
	xz6 := xzSize(b, secs, "-6", "--block-size=1MiB")
	var fastNs float64
	b.Run("fast", func(b *testing.B) {
		e := &Encoder{}
		_, fastNs = encodeAll(b, secs, e.with1MiB)
	})
	for _, mf := range []MatchFinder{HC4, BT4} {
		for _, nice := range []int{16, 24, 32, 48, 64} {
			for _, depth := range []int{4, 8, 16, 32} {
				name := fmt.Sprintf("%s-nice%d-depth%d", [...]string{"hc4", "bt4"}[mf], nice, depth)
				b.Run(name, func(b *testing.B) {
					e := &Encoder{Options: Options{Mode: Normal, MatchFinder: mf, NiceLen: nice, Depth: depth}}
					size, ns := encodeAll(b, secs, e.with1MiB)
					if fastNs > 0 {
						b.ReportMetric(fastNs/ns, "x-fast")
					}
					if xz6 > 0 {
						b.ReportMetric(float64(size)/float64(xz6), "vs-xz6")
					}
				})
			}
		}
	}
}
