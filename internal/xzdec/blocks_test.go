package xzdec

import (
	"bytes"
	"errors"
	"hash/crc32"
	"os/exec"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"
	"github.com/gobpx/bpx/internal/xzenc"
)

// streamBlocks reads the index of the stream z as a reader that starts
// at a block does: footer, then index.
func streamBlocks(z []byte) ([2]byte, []Block, error) {
	if len(z) < FooterSize {
		return [2]byte{}, nil, ErrIndex
	}
	n, flags, err := ParseFooter(z[len(z)-FooterSize:])
	if err != nil {
		return flags, nil, err
	}
	if n > int64(len(z)-FooterSize) {
		return flags, nil, ErrIndex
	}
	blocks, size, err := ParseIndex(z[int64(len(z)-FooterSize)-n:len(z)-FooterSize], flags, int64(len(z)), 1<<30)
	if err == nil && size != int64(len(z)) {
		err = ErrIndex // not one stream
	}
	return flags, blocks, err
}

// decodeBlock decodes block b of z alone.
func decodeBlock(d *Decoder, z []byte, flags [2]byte, b Block) ([]byte, error) {
	d.StartBlock(nil, z[b.Offset:b.Offset+b.Stored], int(b.Size), flags, b)
	out, err := d.DecodeTo(int(b.Size))
	if err == nil && !d.Done() {
		err = errors.New("not done after the whole block")
	}
	return out, err
}

// blockStreams are streams of several blocks: xzenc's with check None,
// and xz(1)'s with CRC64 and SHA-256 checks when it is installed.
func blockStreams(t testing.TB, data []byte, bs int) map[string][]byte {
	e := xzenc.Encoder{Options: xzenc.Options{BlockSize: int64(bs)}}
	var z bytes.Buffer
	if err := e.Encode(&z, data, 1<<20); err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{"xzenc": z.Bytes()}
	if xz, err := exec.LookPath("xz"); err == nil {
		for _, check := range []string{"crc64", "sha256"} {
			cmd := exec.Command(xz, "-1", "-c", "--check="+check, "--block-size="+itoa(bs))
			cmd.Stdin = bytes.NewReader(data)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			m["xz "+check] = out
		}
	}
	return m
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestBlocks: the index of a stream of several blocks gives each block's
// place and size; each block decodes alone, whole or in part, to its part
// of the data; a block's damage, a wrong record and a lying index are
// errors.
func TestBlocks(t *testing.T) {
	const bs = 64 << 10
	data := gocorpus.Source(5*bs + 777)
	for name, z := range blockStreams(t, data, bs) {
		flags, blocks, err := streamBlocks(z)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(blocks) != 6 {
			t.Fatalf("%s: %d blocks, want 6", name, len(blocks))
		}
		var d Decoder
		for i, b := range blocks {
			if b.Start != int64(i*bs) || b.Size != int64(min(bs, len(data)-i*bs)) {
				t.Fatalf("%s: block %d at %d, %d bytes", name, i, b.Start, b.Size)
			}
			want := data[b.Start : b.Start+b.Size]
			got, err := decodeBlock(&d, z, flags, b)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: block %d: %d bytes, %v", name, i, len(got), err)
			}
			// In part: the first 100 bytes, not yet verified.
			d.StartBlock(nil, z[b.Offset:b.Offset+b.Stored], int(b.Size), flags, b)
			part, err := d.DecodeTo(100)
			if err != nil || len(part) < 100 || !bytes.Equal(part, want[:len(part)]) || d.Done() {
				t.Fatalf("%s: block %d in part: %d bytes, %v, done %v", name, i, len(part), err, d.Done())
			}
		}
		b := blocks[2]
		// A record that does not match the block.
		lie := b
		lie.Size--
		if _, err := decodeBlock(&d, z, flags, lie); err == nil {
			t.Errorf("%s: a record one byte short decodes", name)
		}
		lie = b
		lie.unpadded += 4
		if _, err := decodeBlock(&d, z, flags, lie); err == nil {
			t.Errorf("%s: a record of another unpadded size decodes", name)
		}
		// The bytes of another block.
		if _, err := decodeBlock(&d, z, flags, Block{Offset: blocks[1].Offset, Stored: b.Stored, Size: b.Size, unpadded: b.unpadded}); err == nil && blocks[1].Stored != b.Stored {
			t.Errorf("%s: block 1's bytes decode as block 2", name)
		}
		// Damage inside the block: with a check, always an error.
		if name != "xzenc" {
			for _, at := range []int64{b.Stored / 3, b.Stored / 2, b.Stored - 5} {
				bad := bytes.Clone(z)
				bad[b.Offset+at] ^= 0x10
				got, err := decodeBlock(&d, bad, flags, b)
				if err == nil {
					t.Errorf("%s: a byte flipped at %d of block 2 decodes (%d bytes, same %v)", name, at, len(got), bytes.Equal(got, data[b.Start:b.Start+b.Size]))
				}
			}
		}
		// A damaged index or footer is refused before any block is read.
		for _, at := range []int{len(z) - 1, len(z) - 8, len(z) - FooterSize - 2, len(z) - FooterSize - 9} {
			bad := bytes.Clone(z)
			bad[at] ^= 0x01
			if _, _, err := streamBlocks(bad); err == nil {
				t.Errorf("%s: byte %d of %d flipped, the index still parses", name, at, len(z))
			}
		}
		// An index of more than the stream holds.
		n, _, _ := ParseFooter(z[len(z)-FooterSize:])
		if _, _, err := ParseIndex(z[int64(len(z)-FooterSize)-n:len(z)-FooterSize], flags, int64(len(z))-4, 1<<30); err == nil {
			t.Errorf("%s: the index parses for a stream 4 bytes shorter", name)
		}
	}
}

// TestParseIndexBounds: a count of records that cannot fit the index is
// refused before anything is allocated for it.
func TestParseIndexBounds(t *testing.T) {
	idx := []byte{0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, 0}
	idx = appendCRC(idx)
	if _, _, err := ParseIndex(idx, [2]byte{}, 1<<40, 1<<30); !errors.Is(err, ErrIndex) {
		t.Fatalf("a count of 4 billion records in 12 bytes: %v", err)
	}
}

// appendCRC appends the CRC32 of b to b, little-endian.
func appendCRC(b []byte) []byte {
	c := crc32.ChecksumIEEE(b)
	return append(b, byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
}
