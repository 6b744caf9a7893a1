package pack

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"math"
	"runtime"
	"sync"
	"unicode/utf8"
)

// A Writer sorts the objects it stores into three kinds of data sections:
// compressed sections, for objects whose bytes compress, and stored (raw)
// sections, for those that do not: PNG, JPEG and OGG files, archives,
// anything already compressed. LZMA spends as much time on bytes it cannot
// shrink as on others, both ways, and an object read from a stored section
// costs one ReadAt of its own bytes, checked against its digest, with no
// decoder and no section-sized buffer. Text (configuration, scripts,
// shaders, XML: bytes with no NUL that are UTF-8) gets compressed sections
// of its own, first in the file: a game reads all of it at startup, and
// among its meshes, reading it decoded most of the package's compressed
// bytes (SuperTuxKart's 1,141 text files, 32 MB, read 4.8 times as long as
// from a zip; in sections of their own 1.1 times).
//
// The decision is made from the object's first sampleSize bytes, measured,
// never from its name: an estimate of what an LZ coder with an entropy
// coder would make of them (see estimateRatio). An object of fewer than
// minSample bytes is always compressed: it costs little, and small files
// compress together with their neighbours.
//
// The thresholds were measured on SuperTuxKart 1.4's data (5,252 files,
// 719 MB: PNG, JPEG, OGG, meshes, XML; bench/pack-vs-zip.sh), comparing
// the estimate of each file's first 64 KiB with xz (default level) of the
// whole file. Of the 592 MB the estimate stores, LZMA would have saved
// 2.1 MB (0.36%); compressing everything the estimate puts above 0.92 but
// below 0.98 would have cost LZMA 148 MB more for 1.4 MB. Go source,
// text, XML and meshes estimate at 0.15 to 0.75, far below.
const (
	// sampleSize is how many of an object's first bytes are measured.
	sampleSize = 64 << 10
	// minSample: objects smaller than this are always compressed.
	minSample = 1 << 10
	// storeRatio: an object whose sample estimates at or above this
	// fraction of its size is stored.
	storeRatio = 0.93
	// matchCost is the estimate's cost of a byte inside a repeat, as a
	// fraction of a byte.
	matchCost = 0.2
)

// objClass is the kind of data section an object goes to.
type objClass uint8

const (
	classUnknown  objClass = iota // not yet decided (the first bytes are buffered)
	classCompress                 // compressed sections
	classStore                    // stored (raw) sections
	classText                     // compressed sections of text
)

// The Writer's streams of data sections, one a class (see streamOf).
const (
	streamCompress = iota
	streamStore
	streamText
	numStreams
)

// streamOf returns the stream of the sections of class c.
func streamOf(c objClass) int {
	switch c {
	case classStore:
		return streamStore
	case classText:
		return streamText
	}
	return streamCompress
}

// classify returns the class of an object whose first bytes are sample:
// its whole content unless more is true.
//
// Of an object larger than the sample only the sample's second half is
// measured: media files put their headers and metadata first (a PNG's
// XMP text, an ICC profile, a JPEG's EXIF), and these compress as the
// bulk of the file does not. Measured on SuperTuxKart's data, the first
// 64 KiB put 5.9 MB of PNG and JPEG into compressed sections that LZMA
// shrinks by only 0.5 MB, and every read of them then pays LZMA's
// decoding: the second half stores them.
func classify(sample []byte, more bool) objClass {
	text := isText(sample, more)
	if len(sample) < minSample {
		if text {
			return classText
		}
		return classCompress
	}
	half := sample
	if more {
		half = sample[len(sample)/2:]
	}
	switch {
	case estimateRatio(half) >= storeRatio:
		return classStore
	case text:
		return classText
	}
	return classCompress
}

// isText reports whether sample, an object's first bytes (all of them
// unless more), is text: not empty, no NUL byte, and UTF-8 but for a rune
// that more cuts at its end.
func isText(sample []byte, more bool) bool {
	if len(sample) == 0 || bytes.IndexByte(sample, 0) >= 0 {
		return false
	}
	if more {
		// Drop the bytes of a rune the sample's end cuts: at most 3.
		for i := len(sample) - 1; i >= 0 && i >= len(sample)-3; i-- {
			if utf8.RuneStart(sample[i]) {
				if !utf8.FullRune(sample[i:]) {
					sample = sample[:i]
				}
				break
			}
		}
	}
	return utf8.Valid(sample)
}

// estimateRatio estimates the compressed size of b as a fraction of its
// size: the bytes covered by repeats of 4 bytes or more (found greedily
// with a hash table of recent positions, skipping ahead faster while none
// is found, as Snappy does) cost matchCost each, the others their order-0
// entropy. It reads b at several hundred MB/s: measuring costs a small
// fraction of compressing.
func estimateRatio(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	// Four histograms, merged: consecutive bytes do not wait on the same
	// counter.
	var c [4][256]uint32
	i := 0
	for ; i+4 <= len(b); i += 4 {
		c[0][b[i]]++
		c[1][b[i+1]]++
		c[2][b[i+2]]++
		c[3][b[i+3]]++
	}
	for ; i < len(b); i++ {
		c[0][b[i]]++
	}
	n := float64(len(b))
	h := 0.0
	for s := range 256 {
		if v := c[0][s] + c[1][s] + c[2][s] + c[3][s]; v > 0 {
			p := float64(v) / n
			h -= p * math.Log2(p)
		}
	}
	var tab [1 << 14]int32 // position+1 of the last 4 bytes with each hash
	matched, misses := 0, 0
	for i := 0; i+4 <= len(b); {
		v := binary.LittleEndian.Uint32(b[i:])
		hv := (v * 2654435761) >> 18
		j := int(tab[hv]) - 1
		tab[hv] = int32(i + 1)
		if j >= 0 && binary.LittleEndian.Uint32(b[j:]) == v {
			k := 4
			for i+k < len(b) && b[j+k] == b[i+k] {
				k++
			}
			matched += k
			i += k
			misses = 0
			continue
		}
		misses++
		i += 1 + misses>>5
	}
	m := float64(matched) / n
	return (1-m)*h/8 + m*matchCost
}

// classifyFiles sets the class of the files of fsys that are large enough
// to measure, from their first sampleSize bytes, several at a time: AddFS
// knows every file's class before it lays out the sections (see
// fitFiles). A file that cannot be read here stays unclassified: writing
// it reports the error, or classifies it then.
func classifyFiles(fsys fs.FS, files []treeFile) {
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, sampleSize)
			for {
				next.Lock()
				for i < len(files) && files[i].size < minSample {
					i++ // classified from its bytes when written
				}
				if i == len(files) {
					next.Unlock()
					return
				}
				f := &files[i]
				i++
				next.Unlock()
				f.class = classifyFile(fsys, f.name, f.size, buf)
			}
		}()
	}
	wg.Wait()
}

// classifyFile returns the class of the file name of fsys, of size bytes
// (as listed), read into buf, or classUnknown when it cannot be read.
func classifyFile(fsys fs.FS, name string, size int64, buf []byte) objClass {
	r, err := fsys.Open(name)
	if err != nil {
		return classUnknown
	}
	defer r.Close()
	n, err := io.ReadFull(r, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return classUnknown
	}
	return classify(buf[:n], n == len(buf) && size > int64(n))
}
