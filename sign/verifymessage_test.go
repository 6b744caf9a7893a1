package sign

import (
	"crypto/rand"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
	"golang.org/x/crypto/ssh"
)

// testSignature returns a message, a new key's SSHSIG blob of it and the
// blob decoded.
func testSignature(t *testing.T) (msg, sig []byte, blob sshsig) {
	k, err := GenerateKey(rand.Reader, "k")
	if err != nil {
		t.Fatal(err)
	}
	msg = []byte("manifest")
	if sig, err = k.SignMessage(msg); err != nil {
		t.Fatal(err)
	}
	if blob, _, _, err = parseSSHSIG(sig); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyMessage(sig, msg); err != nil {
		t.Fatalf("the signature as made: %v", err)
	}
	return msg, sig, blob
}

// TestSSHSIGTrailingBytes: bytes appended to the signature inside an
// SSHSIG blob (which ssh-keygen -Y verify refuses as trailing data) make
// the signature invalid, so that nobody without the key can change a
// signature's bytes and keep it valid.
func TestSSHSIGTrailingBytes(t *testing.T) {
	msg, _, blob := testSignature(t)
	var s ssh.Signature
	if err := ssh.Unmarshal(blob.Signature, &s); err != nil {
		t.Fatal(err)
	}
	s.Rest = []byte("junk")
	blob.Signature = ssh.Marshal(s)
	bad := append([]byte(sshsigMagic), ssh.Marshal(blob)...)
	if _, err := VerifyMessage(bad, msg); !errors.Is(err, bpx.ErrSignature) {
		t.Errorf("a signature with trailing bytes: %v, want an error matching bpx.ErrSignature", err)
	}
}

// TestSSHSIGReserved: an SSHSIG blob whose reserved field is not empty
// (as neither ssh-keygen nor SignMessage writes it, and which the
// signature does not cover) is invalid.
func TestSSHSIGReserved(t *testing.T) {
	msg, _, blob := testSignature(t)
	blob.Reserved = "junk"
	bad := append([]byte(sshsigMagic), ssh.Marshal(blob)...)
	if _, err := VerifyMessage(bad, msg); !errors.Is(err, bpx.ErrSignature) {
		t.Errorf("a signature with a reserved field: %v, want an error matching bpx.ErrSignature", err)
	}
}
