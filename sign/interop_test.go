package sign

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
)

// TestSSHKeygenVerifiesSignedFile: the manifest of a signed file, taken
// out of its signature section as the format describes, and each of its
// signatures, armored, verify with ssh-keygen -Y verify -n bpx; a
// manifest with one digest changed does not.
func TestSSHKeygenVerifiesSignedFile(t *testing.T) {
	keygen := sshKeygen(t)
	var file bytes.Buffer
	w := bpx.NewWriter(&file)
	w.SetType(bpx.TypePackage)
	if err := w.WriteSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Threshold: 0}, bytes.Repeat([]byte("data "), 50000)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var keys []*PrivateKey
	for _, c := range []string{"alice@example", "bob@example"} {
		k, err := GenerateKey(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	var signed bytes.Buffer
	if err := Sign(&signed, bytes.NewReader(file.Bytes()), int64(file.Len()), keys...); err != nil {
		t.Fatal(err)
	}
	rd, err := bpx.NewReader(bytes.NewReader(signed.Bytes()), int64(signed.Len()))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := rd.Sections[len(rd.Sections)-1].Data()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := parseSigSection(raw)
	if err != nil || len(sec.signatures) != 2 {
		t.Fatalf("signature section: %v", err)
	}

	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var allowed bytes.Buffer
	for _, k := range keys {
		allowed.WriteString(k.Public().Comment + " " + k.Public().String() + "\n")
	}
	allowedFile := write("allowed_signers", allowed.Bytes())
	changed := bytes.Clone(sec.manifest)
	changed[len(changed)-1] ^= 1
	for i, k := range keys {
		sigFile := write("manifest.sig", ArmorSignature(sec.signatures[i]))
		for _, msg := range [][]byte{sec.manifest, changed} {
			cmd := exec.Command(keygen, "-Y", "verify", "-f", allowedFile, "-I", k.Public().Comment, "-n", Namespace, "-s", sigFile)
			cmd.Stdin = bytes.NewReader(msg)
			out, err := cmd.CombinedOutput()
			if ok := bytes.Equal(msg, sec.manifest); (err == nil) != ok {
				t.Fatalf("%s, manifest as signed %v: ssh-keygen -Y verify: %v\n%s", k.Public().Comment, ok, err, out)
			}
		}
	}
}
