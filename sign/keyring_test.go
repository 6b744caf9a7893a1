package sign_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// TestAllowedSignersOptions: an allowed_signers line whose options keep
// its key from signing in namespace bpx (namespaces="git"), or mark it a
// certificate authority (which signs certificates, not files), does not
// make the key trusted for BPX files, as ssh-keygen -Y verify -n bpx
// would not trust it; a namespace list that matches bpx does.
func TestAllowedSignersOptions(t *testing.T) {
	k, other := testKey(t, "k"), testKey(t, "other")
	key := k.Public().String()
	filler := "other@example " + other.Public().String() + "\n" // so that the file names a key
	for _, c := range []struct {
		line    string
		trusted bool
	}{
		{"alice " + key, true},
		{`alice namespaces="bpx" ` + key, true},
		{`alice namespaces="git,b*" ` + key, true},
		{`alice namespaces="git" ` + key, false},
		{`alice namespaces="git,file" ` + key, false},
		{`alice namespaces="*,!bpx" ` + key, false},
		{`alice cert-authority ` + key, false},
		{`alice cert-authority,namespaces="bpx" ` + key, false},
	} {
		checkTrusted(t, filler+c.line+"\n", k.Public(), c.trusted)
	}
}

// TestAllowedSignersValidity: an allowed_signers line whose key is
// valid only before a past date (valid-before) or after a future one
// (valid-after) does not make the key trusted; one valid now does.
func TestAllowedSignersValidity(t *testing.T) {
	k, other := testKey(t, "k"), testKey(t, "other")
	key := k.Public().String()
	filler := "other@example " + other.Public().String() + "\n"
	for _, c := range []struct {
		line    string
		trusted bool
	}{
		{`alice valid-before="19700102" ` + key, false},
		{`alice valid-after="99991231Z" ` + key, false},
		{`alice valid-after="19700102000000Z",valid-before="99991231" ` + key, true},
		{`alice valid-before="999912312359" ` + key, true},
	} {
		checkTrusted(t, filler+c.line+"\n", k.Public(), c.trusted)
	}
	if _, err := sign.ParseKeyRing([]byte(filler + `alice valid-before="soon" ` + key + "\n")); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("an unreadable date: %v, want an error matching bpx.ErrFormat", err)
	}
}

// checkTrusted checks that the trusted-keys file parses and trusts k, or
// does not.
func checkTrusted(t *testing.T, file string, k sign.PublicKey, want bool) {
	t.Helper()
	r, err := sign.ParseKeyRing([]byte(file))
	if err != nil {
		t.Errorf("%q: %v", file, err)
		return
	}
	if _, ok := r.Lookup(k); ok != want {
		t.Errorf("%q: trusted %v, want %v", file, ok, want)
	}
}

// signerCase is one line of testdata/allowed_signers.txt.
type signerCase struct {
	verdict, identity, line string
	n                       int // the line's number in the corpus
}

// readSignerCorpus reads testdata/allowed_signers.txt, with KEY,
// OTHERKEY and ECKEY replaced by the lines given.
func readSignerCorpus(t *testing.T, key, other, ec string) []signerCase {
	t.Helper()
	b, err := os.ReadFile("testdata/allowed_signers.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []signerCase
	for n, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 {
			t.Fatalf("corpus line %d: %q", n+1, l)
		}
		line := strings.NewReplacer("OTHERKEY", other, "ECKEY", ec, "KEY", key).Replace(f[2])
		cases = append(cases, signerCase{f[0], f[1], line, n + 1})
	}
	return cases
}

// ecdsaKeyLine returns an ECDSA public key's authorized_keys line.
func ecdsaKeyLine(t *testing.T) string {
	t.Helper()
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " ec"
}

// TestAllowedSignersCorpus: each line of the corpus, alone in a
// trusted-keys file, is refused (error), or trusts the key for a file
// that states its identity as name (trust), or does not (refuse), as
// ssh-keygen -Y verify -n bpx -I identity would (cmd/bpx checks that
// against ssh-keygen itself): quoted principals with spaces, options in
// any case, only '*' and '?' globs, and no unknown option.
func TestAllowedSignersCorpus(t *testing.T) {
	k, other := testKey(t, "k"), testKey(t, "other")
	file := container(t, 100, 0)
	// The line follows one of another key, so that a file whose line
	// is skipped still names a key.
	filler := "nobody-else " + testKey(t, "filler").Public().String() + "\n"
	for _, c := range readSignerCorpus(t, k.Public().String(), other.Public().String(), ecdsaKeyLine(t)) {
		got := "trust"
		r, err := sign.ParseKeyRing([]byte(filler + c.line + "\n"))
		if err != nil {
			got = "error"
		} else if _, err := open(signAs(t, file, sign.Statement{Name: c.identity}, k), r.Require(sign.Requirement{Name: c.identity})); err != nil {
			got = "refuse"
		}
		if got != c.verdict {
			t.Errorf("corpus line %d, %q as %q: %s (%v), want %s", c.n, c.line, c.identity, got, err, c.verdict)
		}
	}
}

// TestMatchPatternList: ssh's pattern lists: '*' and '?' only, '!'
// negates, and the first negated match refuses.
func TestMatchPatternList(t *testing.T) {
	for _, c := range []struct {
		s, list string
		want    bool
	}{
		{"bpx", "bpx", true}, {"bpx", "b*", true}, {"bpx", "*x", true}, {"bpx", "b?x", true},
		{"bpx", "*", true}, {"bpx", "**", true}, {"bpx", "?", false}, {"bpx", "b??x", false},
		{"bpx", "[b]px", false}, {"bpx", `b\px`, false}, {"b*x", "b*x", true}, {"aaab", "*a*b", true},
		{"bpx", "git,bpx", true}, {"bpx", "!bpx,bpx", false}, {"bpx", "bpx,!b*", false}, {"", "", false},
		{"bpx", strings.Repeat("?", 1023) + ",bpx", false},
	} {
		if got := sign.MatchPatternList(c.s, c.list) == 1; got != c.want {
			t.Errorf("%q against %q: %v, want %v", c.s, c.list, got, c.want)
		}
	}
}
