package pack

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// TestUnpackTrustedBlame: a byte changed inside f2.bin's stored range, in
// the 64 KiB chunk that also holds the end of f1.bin, makes unpacking
// fail while f1.bin is read (its last bytes share the chunk), and the
// error names the objects whose bytes lie in that chunk, f1.bin and
// f2.bin; a byte changed where only f3.bin lies names f3.bin alone. It
// blamed f1.bin only.
func TestUnpackTrustedBlame(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tree := fstest.MapFS{}
	files := map[string][]byte{}
	for _, name := range []string{"f1.bin", "f2.bin", "f3.bin"} {
		b := make([]byte, 100000)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		tree[name] = &fstest.MapFile{Data: b}
		files[name] = b
	}
	k := testKey(t, 1, "k")
	signed := pkgBytes(t, tree, WithSigningKey(k), WithCompression(bpx.CompressNone))
	for _, c := range []struct {
		file string
		at   int
		want []string
		not  []string
	}{
		{"f2.bin", 10, []string{`"f1.bin"`, `"f2.bin"`}, []string{`"f3.bin"`}},
		{"f3.bin", 70000, []string{`"f3.bin"`}, []string{`"f1.bin", `, `"f2.bin"`}},
	} {
		b := bytes.Clone(signed)
		i := bytes.Index(b, files[c.file][:64])
		if i < 0 {
			t.Fatalf("%s not found stored", c.file)
		}
		b[i+c.at] ^= 1
		p := openBytes(t, b, WithTrustedKeys(ring(k)))
		err := p.Unpack(t.TempDir())
		if !errors.Is(err, sign.ErrTampered) {
			t.Fatalf("a byte of %s changed: Unpack = %v", c.file, err)
		}
		msg := err.Error()
		blamed := msg[strings.LastIndex(msg, "("):]
		for _, w := range c.want {
			if !strings.Contains(blamed, w) {
				t.Errorf("a byte of %s changed: %q does not name %s", c.file, msg, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(blamed, w) {
				t.Errorf("a byte of %s changed: %q names %s", c.file, msg, w)
			}
		}
	}
}
