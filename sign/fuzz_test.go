package sign_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// FuzzOpen: whatever the file, Open, Inspect, Sign and Strip neither
// panic nor hang nor allocate beyond the file's size and the documented
// bounds, and a Verified returns only the file's bytes, all of them when
// VerifyAll says they match. (Run it with a bounded -fuzzminimizetime, as
// bench/fuzz.sh does: the default minimizes each new input for up to 60 s,
// during which no execution is counted.)
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
	// A statement (manifest version 2); a second signature that does not
	// verify; a junk one; a header that claims millions of sections.
	f.Add(signAs(f, small, sign.Statement{Name: "game", Version: 7, Expires: time.Unix(4e9, 0)}, k))
	body := parseSigBody(f, twice[parseFileLayout(f, twice).end:])
	bad := bytes.Clone(body.sigs[1])
	bad[len(bad)-1] ^= 1
	f.Add(withSigBody(f, twice, sigBody{body.manifest, [][]byte{body.sigs[0], bad}}.marshal()))
	f.Add(withSigBody(f, twice, sigBody{body.manifest, [][]byte{body.sigs[0], []byte("junk!")}}.marshal()))
	// A paged manifest (chunks of 4 KiB, pages of 64 chunks), and one
	// whose chunk digests were changed.
	paged := func() []byte {
		defer sign.SetChunkSize(4 << 10)()
		defer sign.SetPageChunks(64)()
		return signBytes(f, container(f, 300<<10, 0), k)
	}()
	f.Add(paged)
	pagedBad := bytes.Clone(paged)
	pagedBad[len(pagedBad)-40] ^= 1
	f.Add(pagedBad)
	many := bytes.Clone(signed)
	binary.LittleEndian.PutUint32(many[16:], 1<<22)
	f.Add(many)
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

// FuzzParseKeyRing: whatever the trusted-keys file, ParseKeyRing neither
// panics nor hangs; a ring it returns names a key; and ssh's pattern
// matching agrees with a plain recursive matcher.
func FuzzParseKeyRing(f *testing.F) {
	key := testKey(f, "k").Public().String()
	b, err := os.ReadFile("testdata/allowed_signers.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if c := strings.SplitN(l, "\t", 3); len(c) == 3 {
			f.Add(strings.ReplaceAll(c[2], "KEY", key), c[1])
		}
	}
	f.Add(key+"\n# comment\n\n"+`"a b" namespaces="b*,!git" `+key, "a*b")
	f.Fuzz(func(t *testing.T, file, name string) {
		r, err := sign.ParseKeyRing([]byte(file))
		if err == nil && len(r.Keys()) == 0 {
			t.Fatal("a ring without a key")
		}
		if len(name) <= 64 && len(file) <= 64 {
			if got, want := sign.MatchPatternList(name, file) == 1, naiveList(name, file); got != want {
				t.Fatalf("%q against %q: %v, the plain matcher says %v", name, file, got, want)
			}
		}
	})
}

// naiveList is match_pattern_list by the book, for short inputs.
func naiveList(s, list string) bool {
	pos := false
	subs := strings.Split(list, ",")
	if strings.HasSuffix(list, ",") || list == "" {
		subs = subs[:len(subs)-1] // ssh reads no pattern after a last comma
	}
	for _, p := range subs {
		neg := strings.HasPrefix(p, "!")
		if neg {
			p = p[1:]
		}
		if naiveMatch(s, p) {
			if neg {
				return false
			}
			pos = true
		}
	}
	return pos
}

// naiveMatch matches s against a '*'/'?' glob by the textbook table:
// m[i][j] says whether s[i:] matches p[j:].
func naiveMatch(s, p string) bool {
	m := make([][]bool, len(s)+1)
	for i := range m {
		m[i] = make([]bool, len(p)+1)
	}
	m[len(s)][len(p)] = true
	for i := len(s); i >= 0; i-- {
		for j := len(p) - 1; j >= 0; j-- {
			switch {
			case p[j] == '*':
				m[i][j] = m[i][j+1] || (i < len(s) && m[i+1][j])
			case i < len(s):
				m[i][j] = (p[j] == '?' || p[j] == s[i]) && m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}
