package pull

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// signAs returns b signed by key, stating st.
func signAs(t testing.TB, b []byte, key *sign.PrivateKey, st sign.Statement) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := st.Sign(&out, bytes.NewReader(b), int64(len(b)), key); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Issue 42, item 5 and goal 4: the trust requirements hold whatever the
// path a pull takes. LOCAL already the served file ("up to date") was
// accepted with no check: a frozen mirror serving release 1 to a launcher
// that requires release 2 got exit 0, as did an unsigned LOCAL with
// --trusted and another package's name.
func TestPullUpToDateTrusted(t *testing.T) {
	key, err := sign.GenerateKey(rand.Reader, "publisher")
	if err != nil {
		t.Fatal(err)
	}
	plain := packBytes(t, gameTree(3<<20, 11))
	v1 := signAs(t, plain, key, sign.Statement{Name: "game", Version: 1})
	// A statement that expires (a launcher re-signs its current release
	// now and then, so that a frozen mirror shows): signed to expire in
	// two seconds, pulled after.
	expiring := signAs(t, plain, key, sign.Statement{Name: "game", Version: 1, Expires: time.Now().Add(2 * time.Second)})
	time.Sleep(time.Until(time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)))
	ring := sign.NewKeyRing(key.Public())
	for _, c := range []struct {
		name   string
		served []byte
		ring   *sign.KeyRing
		ok     bool
	}{
		{"release 1, release 1 required", v1, ring.Require(sign.Requirement{Name: "game", MinVersion: 1}), true},
		{"release 1, release 2 required", v1, ring.Require(sign.Requirement{MinVersion: 2}), false},
		{"another package's name", v1, ring.Require(sign.Requirement{Name: "other"}), false},
		{"unsigned", plain, ring, false},
		{"another key", v1, sign.NewKeyRing(mustKey(t).Public()), false},
		{"expired", expiring, ring, false},
	} {
		for _, upToDate := range []bool{true, false} {
			local := filepath.Join(t.TempDir(), "game.bpx")
			if upToDate {
				writeFile(t, local, c.served)
			}
			s := newServer(t, c.served)
			res, err := s.pull(t, context.Background(), local, WithTrustedKeys(c.ring))
			if c.ok {
				if err != nil {
					t.Fatalf("%s (up to date %v): %v", c.name, upToDate, err)
				}
				if res.UpToDate != upToDate {
					t.Errorf("%s: up to date %v, want %v", c.name, res.UpToDate, upToDate)
				}
				mustBe(t, local, c.served)
				continue
			}
			if !errors.Is(err, bpx.ErrSignature) {
				t.Fatalf("%s (up to date %v): %v, want ErrSignature", c.name, upToDate, err)
			}
			// Refused before any chunk is fetched: the head and what
			// follows the digests.
			if reqs, _ := s.counts(); reqs > 3 {
				t.Errorf("%s (up to date %v): %d requests before the refusal", c.name, upToDate, reqs)
			}
		}
	}
}

func mustKey(t testing.TB) *sign.PrivateKey {
	t.Helper()
	k, err := sign.GenerateKey(rand.Reader, "someone")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Issue 42, item 3 and goal 3: the bytes the chunk digests do not cover
// (the signature after them) are fetched with the digests. A server that
// swapped its file for another of the same size right after the digests
// (no validator, or nginx's mtime-size ETag with a fixed build time)
// yielded release 2's data with release 3's signature, exit 0.
func TestPullSwapAfterDigests(t *testing.T) {
	key := mustKey(t)
	tree := gameTree(3<<20, 12)
	// Release 3 changes bytes of a stored file: the same size, other
	// chunks.
	tree3 := fstest.MapFS{}
	for k, v := range tree {
		tree3[k] = v
	}
	k := "models/f0001.bin" // noise: stored as it is
	b := bytes.Clone(tree[k].Data)
	b[len(b)/2] ^= 0xFF
	tree3[k] = &fstest.MapFile{Data: b}
	r2 := signAs(t, packBytes(t, tree), key, sign.Statement{Version: 2})
	r3 := signAs(t, packBytes(t, tree3), key, sign.Statement{Version: 3})
	if len(r2) != len(r3) {
		t.Fatalf("releases of %d and %d bytes: the test wants the same size", len(r2), len(r3))
	}
	for _, local0 := range [][]byte{nil, r3} { // a first download; an update holding release 3's chunks
		local := filepath.Join(t.TempDir(), "game.bpx")
		if local0 != nil {
			writeFile(t, local, local0)
		}
		s := newServer(t, r2)
		s.setHook(func(w http.ResponseWriter, r *http.Request, n int) bool {
			if n == 3 { // after the head and the digests
				s.set(r3, `"v1"`) // the same validator
			}
			return false
		})
		_, err := s.pull(t, context.Background(), local)
		if err != nil {
			continue // refused: fine, LOCAL is as it was (mustBe below for the ok case)
		}
		got := readFile(t, local)
		if !bytes.Equal(got, r2) && !bytes.Equal(got, r3) {
			t.Fatalf("LOCAL %v: installed a file that is neither release (a mix of both)", local0 != nil)
		}
		if v, err := sign.Open(bytes.NewReader(got), int64(len(got)), sign.NewKeyRing(key.Public())); err != nil || v.VerifyAll() != nil {
			t.Fatalf("LOCAL %v: the installed file does not match its signature: %v", local0 != nil, err)
		}
	}
}

// Issue 42, item 4 and goal 3: the final check is exactly "bpx verify".
// Pull installed, with exit 0, a package with a wrong object digest and a
// 'P' file with no object table, both of which bpx verify rejects. (The
// packages have no chunk digests, so that a pull takes them whole and
// only the final check can refuse them.)
func TestPullFinalCheckIsVerify(t *testing.T) {
	good := packBytes(t, gameTree(1<<20, 13), pack.WithChunkDigests(false))
	wrongDigest := testbpx.ReplaceSection(t, good, pack.SectionDigests, bpx.ChecksumWeak, func(d []byte) []byte {
		d[len(d)-1] ^= 1 // the last object's digest
		return d
	})
	for _, c := range []struct {
		name string
		b    []byte
	}{{"a wrong object digest", wrongDigest}, {"no object table", retype(t, good, pack.SectionObjectTable, 0x7E)}} {
		if err := verifyFile(bytes.NewReader(c.b), int64(len(c.b)), nil); err == nil {
			t.Fatalf("%s: verifyFile passes it; the test wants a file bpx verify rejects", c.name)
		}
		local := filepath.Join(t.TempDir(), "game.bpx")
		writeFile(t, local, good)
		if _, err := newServer(t, c.b).pull(t, context.Background(), local); err == nil {
			t.Errorf("%s: installed", c.name)
		}
		mustBe(t, local, good)
	}
}

// retype returns the container b with its section of type from made one
// of type to, its bytes as they are.
func retype(t testing.TB, b []byte, from, to uint8) []byte {
	t.Helper()
	return testbpx.Rewrite(t, b, func(w *bpx.Writer, s *bpx.Section) error {
		if s.Type != from {
			return w.CopySection(s)
		}
		data, err := s.Data()
		if err != nil {
			return err
		}
		return w.WriteSection(to, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, data)
	})
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sized is a Source that claims size bytes for the bytes of r.
type sized struct {
	*bytes.Reader
	size int64
}

func (s sized) Size() int64 { return s.size }

// Issue 42, item 6 and goal 5: the size a server states is not believed
// beyond what the package says of itself. A server claiming 100 GB for a
// 4 MB package had a pull write 1.8 GB in 10 s, kept as LOCAL.part and
// filled further by the next pull. Now nothing is fetched past the head
// nor written, with chunk digests or without.
func TestPullServerSize(t *testing.T) {
	for _, digests := range []bool{true, false} {
		b := packBytes(t, gameTree(1<<20, 14), pack.WithChunkDigests(digests))
		for _, claim := range []int64{int64(len(b)) + 1, int64(len(b)) + 1<<20, 100 << 30} {
			local := filepath.Join(t.TempDir(), "game.bpx")
			_, err := Pull(context.Background(), sized{bytes.NewReader(b), claim}, local)
			if !errors.Is(err, bpx.ErrFormat) {
				t.Fatalf("digests %v, %d bytes claimed for %d: %v, want ErrFormat", digests, claim, len(b), err)
			}
			if fi, err := os.Stat(local + PartSuffix); err == nil {
				t.Fatalf("digests %v, %d bytes claimed: LOCAL.part of %d bytes left", digests, claim, fi.Size())
			}
		}
	}
}
