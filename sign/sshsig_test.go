package sign

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
)

// sshKeygen returns the path of ssh-keygen, or skips the test.
func sshKeygen(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen not installed (Debian package openssh-client): skipping the interop test")
	}
	return p
}

// TestSSHKeygenVerifiesOurSignature: ssh-keygen -Y verify accepts what
// SignMessage signs, with the key as MarshalOpenSSH and String write it.
func TestSSHKeygenVerifiesOurSignature(t *testing.T) {
	keygen := sshKeygen(t)
	dir := t.TempDir()
	k, err := GenerateKey(nil, "modder@example")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("the manifest\x00\x01\x02")
	sig, err := k.SignMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	allowed := write("allowed_signers", []byte("modder@example "+k.Public().String()+"\n"))
	sigFile := write("msg.sig", ArmorSignature(sig))
	cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", "modder@example", "-n", Namespace, "-s", sigFile)
	cmd.Stdin = bytes.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v\n%s", err, out)
	}
	// A changed message fails there too.
	cmd = exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", "modder@example", "-n", Namespace, "-s", sigFile)
	cmd.Stdin = bytes.NewReader(append(msg, 'x'))
	if err := cmd.Run(); err == nil {
		t.Fatal("ssh-keygen verified a changed message")
	}
}

// TestSSHKeygenKeysSign: a key made by ssh-keygen, plain or with a
// passphrase, signs, and its signatures made by ssh-keygen -Y sign verify.
func TestSSHKeygenKeysSign(t *testing.T) {
	keygen := sshKeygen(t)
	for _, pass := range []string{"", "correct horse"} {
		dir := t.TempDir()
		key := filepath.Join(dir, "id_ed25519")
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", pass, "-C", "me@host", "-f", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		data, err := os.ReadFile(key)
		if err != nil {
			t.Fatal(err)
		}
		pubLine, err := os.ReadFile(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		pub, err := ParsePublicKey(pubLine)
		if err != nil {
			t.Fatal(err)
		}
		if pass != "" {
			if _, err := ParsePrivateKey(data, nil); !errors.Is(err, ErrPassphrase) {
				t.Fatalf("encrypted key without passphrase: %v", err)
			}
			if _, err := ParsePrivateKey(data, []byte("wrong")); !errors.Is(err, ErrPassphrase) {
				t.Fatalf("wrong passphrase: %v", err)
			}
		}
		k, err := ParsePrivateKey(data, []byte(pass))
		if err != nil {
			t.Fatal(err)
		}
		if !k.Public().Equal(pub) || k.Public().ID() != pub.ID() {
			t.Fatalf("public keys differ: %s vs %s", k.Public(), pub)
		}
		out, err := exec.Command(keygen, "-l", "-f", key+".pub").Output()
		if err != nil || !bytes.Contains(out, []byte(pub.ID())) {
			t.Fatalf("ssh-keygen -l says %q, ID %s (%v)", out, pub.ID(), err)
		}
		// ssh-keygen -Y sign, verified here.
		msgFile := filepath.Join(dir, "msg")
		msg := []byte("signed by ssh-keygen")
		os.WriteFile(msgFile, msg, 0o600)
		cmd := exec.Command(keygen, "-Y", "sign", "-f", key, "-n", Namespace, "-P", pass, msgFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
		}
		armored, err := os.ReadFile(msgFile + ".sig")
		if err != nil {
			t.Fatal(err)
		}
		blob := unarmor(t, armored)
		got, err := VerifyMessage(blob, msg)
		if err != nil || !got.Equal(pub) {
			t.Fatalf("VerifyMessage: %v, %v", got, err)
		}
		if _, err := VerifyMessage(blob, append(msg, '!')); !errors.Is(err, bpx.ErrSignature) {
			t.Fatalf("changed message: %v", err)
		}
	}
}

// unarmor decodes an armored SSH SIGNATURE.
func unarmor(t *testing.T, b []byte) []byte {
	t.Helper()
	var b64 []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 || bytes.HasPrefix(line, []byte("-----")) {
			continue
		}
		b64 = append(b64, line...)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(out, b64)
	if err != nil {
		t.Fatal(err)
	}
	return out[:n]
}
