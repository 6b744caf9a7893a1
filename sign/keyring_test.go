package sign_test

import (
	"errors"
	"testing"

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
		{`alice valid-after="19700101000000Z",valid-before="99991231" ` + key, true},
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
