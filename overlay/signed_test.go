package overlay_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// signedPackage writes m into a package, signed by key unless it is nil,
// and opens it, with trusted keys when trusted is not nil.
func signedPackage(t *testing.T, m fstest.MapFS, key *sign.PrivateKey, trusted *sign.KeyRing) *pack.Package {
	t.Helper()
	var buf bytes.Buffer
	var wopts []pack.WriterOption
	if key != nil {
		wopts = append(wopts, pack.WithSigningKey(key))
	}
	w := pack.NewWriter(&buf, wopts...)
	if err := w.AddFS(m); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var opts []pack.Option
	if trusted != nil {
		opts = append(opts, pack.WithTrustedKeys(trusted))
	}
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRequireSigned: RequireSigned stacks layers that name their trusted
// signers, and refuses, naming the layer, an unsigned package, a signed
// one opened without trusted keys and a layer that cannot tell; Signers
// names each layer's keys.
func TestRequireSigned(t *testing.T) {
	key := func(seed byte, comment string) *sign.PrivateKey {
		k, err := sign.GenerateKey(rand.NewChaCha8([32]byte{25, seed}), comment)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	studio, modder := key(1, "studio"), key(2, "modder")
	trusted := sign.NewKeyRing(studio.Public(), modder.Public())
	base := signedPackage(t, files("a.txt", "base", "b.txt", "base"), studio, trusted)
	mod := signedPackage(t, files("a.txt", "mod"), modder, trusted)

	o, err := overlay.RequireSigned(base, mod)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(o, "a.txt"); err != nil || string(got) != "mod" {
		t.Errorf("a.txt = %q, %v", got, err)
	}
	for i, want := range []*sign.PrivateKey{studio, modder} {
		if s := o.Signers(i); len(s) != 1 || !s[0].Equal(want.Public()) || s[0].Comment != want.Public().Comment {
			t.Errorf("layer %d signed by %v, want %v", i, s, want.Public())
		}
	}
	if s := o.Signers(2); s != nil {
		t.Errorf("Signers(2) = %v", s)
	}

	unsigned := signedPackage(t, files("a.txt", "unsigned"), nil, nil)
	notChecked := signedPackage(t, files("a.txt", "signed"), modder, nil)
	for _, c := range []struct {
		what  string
		layer fs.FS
	}{
		{"an unsigned package", unsigned},
		{"a signed package opened without trusted keys", notChecked},
		{"a MapFS", files("a.txt", "loose")},
	} {
		_, err := overlay.RequireSigned(base, c.layer)
		if !errors.Is(err, bpx.ErrSignature) || !strings.Contains(fmt.Sprint(err), "layer 1") {
			t.Errorf("%s: err = %v, want ErrSignature naming layer 1", c.what, err)
		}
	}

	// New stacks them all and still tells who signed what.
	o, err = overlay.New(base, unsigned)
	if err != nil {
		t.Fatal(err)
	}
	if o.Signers(0) == nil || o.Signers(1) != nil {
		t.Errorf("New: signers %v, %v", o.Signers(0), o.Signers(1))
	}
}

// TestPolicy: issue 31 item 8. A game that signs nothing of its own loads
// its base unsigned and requires every mod signed: Policy{Unsigned: 1}.
// An unsigned mod is refused, naming its layer; with Keys, a mod signed
// by another trusted key is refused; Unsigned beyond the layers is fine.
func TestPolicy(t *testing.T) {
	key := func(seed byte, comment string) *sign.PrivateKey {
		k, err := sign.GenerateKey(rand.NewChaCha8([32]byte{26, seed}), comment)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	modder, other := key(1, "modder"), key(2, "other")
	trusted := sign.NewKeyRing(modder.Public(), other.Public())
	base := signedPackage(t, files("a.txt", "base", "b.txt", "base"), nil, nil)
	mod := signedPackage(t, files("a.txt", "mod"), modder, trusted)
	otherMod := signedPackage(t, files("b.txt", "other"), other, trusted)
	unsignedMod := signedPackage(t, files("b.txt", "unsigned"), nil, nil)

	game, err := overlay.Policy{Unsigned: 1}.New(base, mod, otherMod)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(game, "a.txt"); err != nil || string(b) != "mod" {
		t.Fatalf("a.txt: %q, %v", b, err)
	}
	if _, err := overlay.RequireSigned(base, mod); !errors.Is(err, bpx.ErrSignature) || !strings.Contains(err.Error(), "layer 0") {
		t.Fatalf("RequireSigned with an unsigned base: %v", err)
	}
	_, err = overlay.Policy{Unsigned: 1}.New(base, mod, unsignedMod)
	if !errors.Is(err, bpx.ErrSignature) || !strings.Contains(err.Error(), "layer 2") {
		t.Fatalf("unsigned mod: %v", err)
	}
	_, err = overlay.Policy{Unsigned: 1, Keys: []sign.PublicKey{modder.Public()}}.New(base, mod, otherMod)
	if !errors.Is(err, bpx.ErrSignature) || !strings.Contains(err.Error(), "layer 2") {
		t.Fatalf("mod signed by a key the policy does not allow: %v", err)
	}
	if _, err := (overlay.Policy{Unsigned: 5}).New(base, unsignedMod); err != nil {
		t.Fatalf("Unsigned beyond the layers: %v", err)
	}
}
