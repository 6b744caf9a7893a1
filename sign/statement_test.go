package sign_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gobpx/bpx/sign"
)

// signAs signs file with keys, stating st.
func signAs(t testing.TB, file []byte, st sign.Statement, keys ...*sign.PrivateKey) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := st.Sign(&out, bytes.NewReader(file), int64(len(file)), keys...); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRollback: a reader that requires at least version 4 refuses a
// validly signed version 3 (the release it replaced), with
// ErrRequirement; version 4 and 5 open, and say which they are.
func TestRollback(t *testing.T) {
	k := testKey(t, "k")
	file := container(t, 1000, 1000)
	need := ring(k).Require(sign.Requirement{Name: "game", MinVersion: 4})
	old := signAs(t, file, sign.Statement{Name: "game", Version: 3}, k)
	if err := mustFail(t, "version 3", old, need); !errors.Is(err, sign.ErrRequirement) || !strings.Contains(err.Error(), "version 3") {
		t.Errorf("version 3, at least 4 required: %v", err)
	}
	for _, ver := range []uint64{4, 5} {
		v, err := open(signAs(t, file, sign.Statement{Name: "game", Version: ver}, k), need)
		if err != nil {
			t.Fatalf("version %d: %v", ver, err)
		}
		if st := v.Statement(); st.Name != "game" || st.Version != ver {
			t.Errorf("version %d: Statement %+v", ver, st)
		}
	}
	// A file signed before statements existed states nothing: a reader
	// that requires a name refuses it, one that requires nothing opens it.
	plain := signBytes(t, file, k)
	if err := mustFail(t, "no statement", plain, need); !errors.Is(err, sign.ErrRequirement) || !strings.Contains(err.Error(), "no name") {
		t.Errorf("no statement: %v", err)
	}
	if v, err := open(plain, ring(k)); err != nil || !v.Statement().IsZero() {
		t.Errorf("no statement, nothing required: %v", err)
	}
}

// TestSubstitution: a package signed by a trusted key under another name
// (a mod served in place of the base game) is refused by a reader that
// requires the name; and a key ring whose allowed_signers line limits a
// key to some names (its principals) does not let that key sign others,
// even under the required name.
func TestSubstitution(t *testing.T) {
	studio, modder := testKey(t, "studio"), testKey(t, "modder")
	file := container(t, 1000, 1000)
	r, err := sign.ParseKeyRing([]byte("base,base-* " + studio.Public().String() + "\n" +
		`"mod-*" namespaces="bpx" ` + modder.Public().String() + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	base := r.Require(sign.Requirement{Name: "base"})
	mod := signAs(t, file, sign.Statement{Name: "mod-hats"}, modder)
	if err := mustFail(t, "a mod as the base", mod, base); !errors.Is(err, sign.ErrRequirement) || !strings.Contains(err.Error(), `"mod-hats"`) {
		t.Errorf("a mod served as the base: %v", err)
	}
	forged := signAs(t, file, sign.Statement{Name: "base"}, modder)
	if err := mustFail(t, "the modder signs the base", forged, base); !errors.Is(err, sign.ErrRequirement) || !strings.Contains(err.Error(), "may not sign") {
		t.Errorf("the modder's key signs a package named base: %v", err)
	}
	if _, err := open(signAs(t, file, sign.Statement{Name: "base"}, studio), base); err != nil {
		t.Errorf("the studio's base: %v", err)
	}
	if _, err := open(mod, r.Require(sign.Requirement{Name: "mod-hats"})); err != nil {
		t.Errorf("the mod as a mod: %v", err)
	}
	// Signed by both, the studio's signature is the one that counts.
	if v, err := open(signAs(t, file, sign.Statement{Name: "base"}, modder, studio), base); err != nil || len(v.Signers()) != 1 || !v.Signers()[0].Equal(studio.Public()) {
		t.Errorf("the base signed by both: %v", err)
	}
}

// TestExpired: a file whose statement has expired is refused by every
// reader, with ErrExpired; one that expires later opens.
func TestExpired(t *testing.T) {
	k := testKey(t, "k")
	file := container(t, 1000, 1000)
	// Sign refuses a statement every reader would refuse.
	err := sign.Statement{Expires: time.Now().Add(-time.Minute)}.Sign(&bytes.Buffer{}, bytes.NewReader(file), int64(len(file)), k)
	if !errors.Is(err, sign.ErrExpired) {
		t.Errorf("signing an expired statement: %v", err)
	}
	soon := time.Now().Add(1500 * time.Millisecond)
	past := signAs(t, file, sign.Statement{Name: "game", Expires: soon}, k)
	time.Sleep(time.Until(time.Unix(soon.Unix(), 0)) + 50*time.Millisecond) // expiry is in whole seconds
	if err := mustFail(t, "expired", past, ring(k)); !errors.Is(err, sign.ErrExpired) {
		t.Errorf("expired: %v", err)
	}
	// Signing it again keeps the statement, which has expired.
	if err := sign.Sign(&bytes.Buffer{}, bytes.NewReader(past), int64(len(past)), k); !errors.Is(err, sign.ErrExpired) {
		t.Errorf("signing an expired file again: %v", err)
	}
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	v, err := open(signAs(t, file, sign.Statement{Expires: exp}, k), ring(k))
	if err != nil || !v.Statement().Expires.Equal(exp) {
		t.Errorf("expires in an hour: %v (%+v)", err, v)
	}
}

// TestStatementKeptWhenSignedAgain: adding a signature to a file that
// states a name keeps the name (and the first signature); stating
// another drops the first signature, which signed the old statement.
func TestStatementKeptWhenSignedAgain(t *testing.T) {
	a, b := testKey(t, "a"), testKey(t, "b")
	first := signAs(t, container(t, 1000, 1000), sign.Statement{Name: "game", Version: 2}, a)
	both := signBytes(t, first, b)
	v, err := open(both, ring(a, b))
	if err != nil || len(v.Signers()) != 2 || v.Statement().Name != "game" || v.Statement().Version != 2 {
		t.Fatalf("signed again: %v, %+v", err, v)
	}
	v, err = open(signAs(t, first, sign.Statement{Name: "game", Version: 3}, b), ring(a, b))
	if err != nil || len(v.Signers()) != 1 || v.Statement().Version != 3 {
		t.Errorf("a new statement: %v", err)
	}
}

// TestStatementRefused: names that are too long, not UTF-8 or hold
// control characters are not signed.
func TestStatementRefused(t *testing.T) {
	k := testKey(t, "k")
	file := container(t, 100, 0)
	for _, name := range []string{strings.Repeat("n", sign.MaxNameLen+1), "a\x1b[31m", "\xff"} {
		err := sign.Statement{Name: name}.Sign(&bytes.Buffer{}, bytes.NewReader(file), int64(len(file)), k)
		if err == nil {
			t.Errorf("name %q: signed", name)
		}
	}
	if _, err := open(signAs(t, file, sign.Statement{Name: strings.Repeat("n", sign.MaxNameLen)}, k), ring(k)); err != nil {
		t.Errorf("a name of %d bytes: %v", sign.MaxNameLen, err)
	}
}
