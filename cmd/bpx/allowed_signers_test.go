package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"golang.org/x/crypto/ssh"
)

// TestAllowedSignersLikeSSHKeygen is the differential test of trusted-keys
// files: every line of sign's corpus (sign/testdata/allowed_signers.txt),
// after a line of another key, is given to bpx verify --trusted --name
// IDENTITY over a package signed as IDENTITY, and to ssh-keygen -Y verify
// -n bpx -I IDENTITY over the package's manifest and signature; both must
// accept it or both refuse it, and as the corpus says.
func TestAllowedSignersLikeSSHKeygen(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen is not installed (Debian: openssh-client): the differential test needs it")
	}
	f := newSignFixture(t)
	key := strings.TrimSpace(readFileString(t, f.key+".pub"))
	other := strings.TrimSpace(readFileString(t, f.other+".pub"))
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPub, err := ssh.NewPublicKey(&ec.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ecLine := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ecPub)))
	filler := "nobody-else " + other + "\n"

	corpus, err := os.ReadFile("../../sign/testdata/allowed_signers.txt")
	if err != nil {
		t.Fatal(err)
	}
	signed := map[string][3]string{} // identity: package, manifest file, signature file
	for n, l := range strings.Split(string(corpus), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := strings.SplitN(l, "\t", 3)
		verdict, identity := c[0], c[1]
		line := strings.NewReplacer("OTHERKEY", other, "ECKEY", ecLine, "KEY", key).Replace(c[2])
		files, ok := signed[identity]
		if !ok {
			pkg := filepath.Join(f.dir, "signed-"+strings.ReplaceAll(identity, " ", "_")+".bpx")
			if r := runBPX(t, nil, "sign", "--key", f.key, "--name", identity, "-o", pkg, f.plain); r.Code != exitOK {
				t.Fatalf("sign --name %q: %+v", identity, r)
			}
			manifest, sig := manifestAndSignature(t, pkg)
			files = [3]string{pkg, writeTemp(t, f.dir, "manifest", manifest), writeTemp(t, f.dir, "sig", sign.ArmorSignature(sig))}
			signed[identity] = files
		}
		allowed := writeTemp(t, f.dir, "allowed_signers", []byte(filler+line+"\n"))
		r := runBPX(t, nil, "verify", "-q", "--trusted", allowed, "--name", identity, files[0])
		cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", identity, "-n", sign.Namespace, "-s", files[2])
		manifest, err := os.Open(files[1])
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = manifest
		out, sshErr := cmd.CombinedOutput()
		manifest.Close()
		bpxOK, sshOK := r.Code == exitOK, sshErr == nil
		if bpxOK != sshOK || bpxOK != (verdict == "trust") {
			t.Errorf("corpus line %d, %q as %q: bpx verify ok %v (%s), ssh-keygen ok %v (%s), corpus %s",
				n+1, line, identity, bpxOK, strings.TrimSpace(r.Stderr+r.Stdout), sshOK, bytes.TrimSpace(out), verdict)
		}
	}
}

// manifestAndSignature returns the manifest and the first signature of
// the signed file name, read from its signature section as the format
// describes it.
func manifestAndSignature(t *testing.T, name string) ([]byte, []byte) {
	t.Helper()
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := rc.Sections[len(rc.Sections)-1].Data()
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint32(b[8:])
	manifest := b[12 : 12+n]
	rest := b[12+n+4:]
	l := binary.LittleEndian.Uint32(rest)
	return manifest, rest[4 : 4+l]
}

// writeTemp writes b to the file name in dir and returns its path.
func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFileString returns the file's content.
func readFileString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
