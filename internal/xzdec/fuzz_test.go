package xzdec

import (
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/xzenc"
)

// FuzzDecode: on any bytes, no panic, nothing beyond the limit, and
// whatever is accepted is exactly what the general decoder produces.
// Decoding in steps (DecodeTo, with stops drawn from the input's CRC)
// and with a Reader gives the same bytes or the same error as Decode.
func FuzzDecode(f *testing.F) {
	var enc xzenc.Encoder
	for _, s := range []string{"", "a", "abcabcabcabcabd", "the quick brown fox jumps over the lazy dog the quick brown fox"} {
		var z bytes.Buffer
		enc.Encode(&z, []byte(s), 4096)
		f.Add(z.Bytes())
	}
	// Streams with each check type, if xz(1) is installed.
	if xz, err := exec.LookPath("xz"); err == nil {
		for _, check := range []string{"crc32", "crc64", "sha256"} {
			cmd := exec.Command(xz, "-1", "-c", "--check="+check)
			cmd.Stdin = strings.NewReader("abracadabra, abracadabra, abracadabra!")
			if z, err := cmd.Output(); err == nil {
				f.Add(z)
			}
		}
	}
	// Several blocks, stored chunks and LZMA chunks in one stream.
	var a, b bytes.Buffer
	enc.Encode(&a, bytes.Repeat([]byte("several blocks, "), 5000), 1<<20)
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(i * i >> 3)
	}
	enc.Encode(&b, random, 1<<20)
	f.Add(joinBlocks(f, a.Bytes(), b.Bytes()))
	var dec, sdec Decoder
	var rd Reader
	f.Fuzz(func(t *testing.T, z []byte) {
		const limit = 1 << 20
		rng := rand.New(rand.NewPCG(uint64(crc32.ChecksumIEEE(z)), 0))
		steppedMatches(t, &dec, "fuzz", z, rng)
		readerMatches(t, &dec, &rd, "fuzz", z, rng)
		startReaderMatches(t, &dec, &sdec, z, rng)
		got, err := dec.Decode(nil, z, limit)
		if err != nil {
			return
		}
		if len(got) > limit {
			t.Fatalf("%d bytes, limit %d", len(got), limit)
		}
		want, werr := xi2(t, z)
		if werr != nil || !bytes.Equal(got, want) {
			t.Fatalf("accepted %d bytes; general decoder %d bytes, %v", len(got), len(want), werr)
		}
	})
}

// FuzzBlocks: on any bytes, reading the index from the end and decoding
// blocks alone never panics and never returns more than a block's size;
// where the whole stream decodes, every block decodes alone to its part
// of it.
func FuzzBlocks(f *testing.F) {
	for _, z := range blockStreams(f, bytes.Repeat([]byte("blocks of a stream, "), 3000), 16<<10) {
		f.Add(z)
	}
	var e xzenc.Encoder
	var z bytes.Buffer
	e.Encode(&z, []byte("one block"), 4096)
	f.Add(z.Bytes())
	var d Decoder
	f.Fuzz(func(t *testing.T, z []byte) {
		flags, blocks, err := streamBlocks(z)
		if err != nil {
			return
		}
		whole, werr := d.Decode(nil, z, 1<<22)
		var all []byte
		for i, b := range blocks {
			if b.Size > 1<<22 {
				return
			}
			got, err := decodeBlock(&d, z, flags, b)
			if err == nil && int64(len(got)) != b.Size {
				t.Fatalf("block %d: %d bytes, index says %d", i, len(got), b.Size)
			}
			if werr == nil && err != nil {
				t.Fatalf("block %d fails alone (%v), the whole stream decodes", i, err)
			}
			all = append(all, got...)
		}
		if werr == nil && !bytes.Equal(all, whole) {
			t.Fatalf("blocks decode to %d bytes, the stream to %d", len(all), len(whole))
		}
	})
}
