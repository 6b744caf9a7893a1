package sign_test

import (
	"testing"

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
		r, err := sign.ParseKeyRing([]byte(filler + c.line + "\n"))
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if _, ok := r.Lookup(k.Public()); ok != c.trusted {
			t.Errorf("%q: trusted %v, want %v", c.line, ok, c.trusted)
		}
	}
}
