package sign

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
	"golang.org/x/crypto/ssh"
)

// TestSSHSIGTrailingBytes: bytes appended to the signature inside an
// SSHSIG blob (which ssh-keygen -Y verify refuses as trailing data) make
// the signature invalid, so that nobody without the key can change a
// signature's bytes and keep it valid.
func TestSSHSIGTrailingBytes(t *testing.T) {
	k, err := GenerateKey(rand.Reader, "k")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("manifest")
	sig, err := k.SignMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	blob, _, _, err := parseSSHSIG(sig)
	if err != nil {
		t.Fatal(err)
	}
	var s ssh.Signature
	if err := ssh.Unmarshal(blob.Signature, &s); err != nil {
		t.Fatal(err)
	}
	s.Rest = []byte("junk")
	blob.Signature = ssh.Marshal(s)
	bad := append([]byte(sshsigMagic), ssh.Marshal(blob)...)
	if _, err := VerifyMessage(sig, msg); err != nil {
		t.Fatalf("the signature as made: %v", err)
	}
	if _, err := VerifyMessage(bad, msg); !errors.Is(err, bpx.ErrSignature) {
		t.Errorf("a signature with trailing bytes: %v, want an error matching bpx.ErrSignature", err)
	}
}
