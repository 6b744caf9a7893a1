package sign_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// FuzzOpen: whatever the file, Open, Inspect, Sign and Strip neither
// panic nor hang nor allocate beyond the file's size and the documented
// bounds, and a Verified returns only the file's bytes, all of them when
// VerifyAll says they match.
func FuzzOpen(f *testing.F) {
	k := testKey(f, "fuzz")
	trusted := ring(k)
	small := container(f, 100, 0)
	signed := signBytes(f, small, k)
	twice := signBytes(f, signed, testKey(f, "other"))
	lay := parseFileLayout(f, signed)
	for _, seed := range [][]byte{
		signed, twice, small,
		signed[:len(signed)-1], signed[:lay.end], signed[:lay.start], signed[:40],
		append(bytes.Clone(signed), 0),
	} {
		f.Add(seed)
	}
	for _, off := range []int64{lay.start, lay.end + 8, lay.end + 12, lay.end + 20, lay.sigEnd - 1} {
		b := bytes.Clone(signed)
		b[off] ^= 0x40
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		st, err := sign.Inspect(bytes.NewReader(data), size)
		if err != nil {
			t.Fatalf("Inspect: %v", err)
		}
		v, err := sign.Open(bytes.NewReader(data), size, trusted)
		if err == nil {
			if !st.Signed || !st.Matches || st.Problem != nil {
				t.Fatalf("Open succeeds, Inspect says %+v", st)
			}
			all := make([]byte, size)
			n, rerr := v.ReadAt(all, 0)
			verr := v.VerifyAll()
			if !bytes.Equal(all[:n], data[:n]) {
				t.Fatal("ReadAt returned other bytes than the file's")
			}
			if (verr == nil) != (n == len(data) && (rerr == nil || rerr == io.EOF)) {
				t.Fatalf("VerifyAll %v, ReadAt %d of %d bytes, %v", verr, n, size, rerr)
			}
		} else if !errors.Is(err, bpx.ErrSignature) {
			t.Fatalf("Open: %v does not match bpx.ErrSignature", err)
		}

		var out bytes.Buffer
		if err := sign.Sign(&out, bytes.NewReader(data), size, k); err == nil {
			v, err := sign.Open(bytes.NewReader(out.Bytes()), int64(out.Len()), trusted)
			if err != nil {
				t.Fatalf("Open of what Sign wrote: %v", err)
			}
			if err := v.VerifyAll(); err != nil {
				t.Fatalf("VerifyAll of what Sign wrote: %v", err)
			}
			var stripped bytes.Buffer
			if had, err := sign.Strip(&stripped, bytes.NewReader(out.Bytes()), int64(out.Len())); err != nil || !had {
				t.Fatalf("Strip of what Sign wrote: %v, %v", had, err)
			}
			if _, err := sign.Open(bytes.NewReader(stripped.Bytes()), int64(stripped.Len()), trusted); !errors.Is(err, sign.ErrUnsigned) {
				t.Fatalf("Open of a stripped file: %v", err)
			}
		}
	})
}
