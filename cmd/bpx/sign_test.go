package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/sign"
)

// marker is the content of the object the signing tests tamper with: a
// byte of it is found in an uncompressed package and flipped.
const marker = "the-object-the-tests-tamper-with: 0123456789abcdef"

// signFixture is a directory with a tree src, the key pair key and
// key.pub, the trusted-keys file trusted (key.pub's line), another key
// pair other, and the unsigned package plain.bpx of src (uncompressed,
// so that a flipped byte of marker is found in it).
type signFixture struct {
	dir, src, key, trusted, other, plain string
}

func newSignFixture(t *testing.T) signFixture {
	t.Helper()
	dir := t.TempDir()
	f := signFixture{dir: dir, src: filepath.Join(dir, "src"), key: filepath.Join(dir, "key"),
		trusted: filepath.Join(dir, "trusted.keys"), other: filepath.Join(dir, "other"), plain: filepath.Join(dir, "plain.bpx")}
	writeFiles(t, f.src, map[string]string{"a.txt": marker, "dir/b.txt": strings.Repeat("b", 100000)})
	for _, k := range []string{f.key, f.other} {
		if r := runBPX(t, nil, "keygen", "-C", "modder@example.org", "-o", k); r.Code != exitOK {
			t.Fatalf("keygen: %+v", r)
		}
	}
	pub, err := os.ReadFile(f.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.trusted, append([]byte("# the keys I trust\n"), pub...), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "-o", f.plain, f.src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	return f
}

// signed returns a copy of the package signed by key, named name in the
// fixture's directory, made by bpx sign -o.
func (f signFixture) signed(t *testing.T, name, key string) string {
	t.Helper()
	out := filepath.Join(f.dir, name)
	if r := runBPX(t, nil, "sign", "--key", key, "-o", out, f.plain); r.Code != exitOK {
		t.Fatalf("sign: %+v", r)
	}
	return out
}

// tamper returns a copy of the file name, as name+suffix, with one byte
// of marker flipped: same size, every section header as it was.
func tamper(t *testing.T, name, suffix string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		t.Fatalf("%s does not hold the marker", name)
	}
	b[i+5] ^= 0x20
	out := name + suffix
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKeygen: bpx keygen writes the secret key (0600) and the public key
// (0644) that parse, prints the key's ID, and never overwrites a key.
func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "modkey")
	r := runBPX(t, nil, "keygen", "-C", "Alice's mods", "-o", name)
	if r.Code != exitOK || r.Stderr != "" {
		t.Fatalf("keygen: %+v", r)
	}
	secret, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sign.ParsePrivateKey(secret, nil)
	if err != nil {
		t.Fatalf("the secret key does not parse unencrypted: %v", err)
	}
	pubLine, err := os.ReadFile(name + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := sign.ParsePublicKey(pubLine)
	if err != nil || !pub.Equal(k.Public()) || pub.Comment != "Alice's mods" {
		t.Fatalf("public key %q: %v (comment %q)", pubLine, err, pub.Comment)
	}
	if !strings.Contains(r.Stdout, pub.ID()) {
		t.Errorf("keygen does not print the key ID %s:\n%s", pub.ID(), r.Stdout)
	}
	if runtime.GOOS != "windows" {
		for file, want := range map[string]os.FileMode{name: 0o600, name + ".pub": 0o644} {
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			// umask may clear bits, never set them.
			if got := fi.Mode().Perm(); got&^want != 0 || (file == name && got != 0o600) {
				t.Errorf("%s: mode %v, want %v", file, got, want)
			}
		}
	}
	// Neither NAME nor NAME.pub is overwritten.
	r = runBPX(t, nil, "keygen", "-o", name)
	if r.Code != exitFail || !strings.Contains(r.Stderr, "exists") {
		t.Errorf("keygen over a key: %+v", r)
	}
	checkOneLineError(t, r)
	if again, _ := os.ReadFile(name); !bytes.Equal(again, secret) {
		t.Error("keygen overwrote the secret key")
	}
	lone := filepath.Join(dir, "lone")
	if err := os.WriteFile(lone+".pub", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBPX(t, nil, "keygen", "-o", lone); r.Code != exitFail {
		t.Errorf("keygen over NAME.pub: %+v", r)
	}
	if _, err := os.Stat(lone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("keygen left %s beside the NAME.pub it refused: %v", lone, err)
	}
	if r := runBPX(t, nil, "keygen"); r.Code != exitUsage {
		t.Errorf("keygen without -o: %+v", r)
	}
}

// TestKeygenPassphrase: --passphrase-file encrypts the key (standard input
// is no terminal, so nothing is asked); signing with it needs the
// passphrase, from $BPX_PASSPHRASE or --passphrase-file, and fails clearly
// without it or with a wrong one.
func TestKeygenPassphrase(t *testing.T) {
	f := newSignFixture(t)
	passFile := filepath.Join(f.dir, "pass")
	if err := os.WriteFile(passFile, []byte("correct horse\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(f.dir, "enc")
	if r := runBPX(t, nil, "keygen", "--passphrase-file", passFile, "-o", key); r.Code != exitOK || !strings.Contains(r.Stdout, "encrypted") {
		t.Fatalf("keygen --passphrase-file: %+v", r)
	}
	secret, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.ParsePrivateKey(secret, nil); !errors.Is(err, sign.ErrPassphrase) {
		t.Fatalf("the key is not encrypted: %v", err)
	}
	if _, err := sign.ParsePrivateKey(secret, []byte("correct horse")); err != nil {
		t.Fatalf("the key does not decrypt with the file's first line: %v", err)
	}
	pkg := filepath.Join(f.dir, "p.bpx")
	r := runBPX(t, nil, "sign", "--key", key, "-o", pkg, f.plain)
	if r.Code != exitFail || !strings.Contains(r.Stderr, "BPX_PASSPHRASE") || !strings.Contains(r.Stderr, "--passphrase-file") {
		t.Errorf("sign with an encrypted key and no passphrase: %+v", r)
	}
	checkOneLineError(t, r)
	t.Setenv(passphraseEnv, "wrong")
	if r := runBPX(t, nil, "sign", "--key", key, "-o", pkg, f.plain); r.Code != exitFail || !strings.Contains(r.Stderr, "wrong") {
		t.Errorf("sign with a wrong passphrase: %+v", r)
	}
	if _, err := os.Stat(pkg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed sign wrote %s", pkg)
	}
	t.Setenv(passphraseEnv, "correct horse")
	if r := runBPX(t, nil, "sign", "--key", key, "-o", pkg, f.plain); r.Code != exitOK {
		t.Fatalf("sign with $BPX_PASSPHRASE: %+v", r)
	}
	os.Unsetenv(passphraseEnv)
	trusted := filepath.Join(f.dir, "enc.keys")
	pub, _ := os.ReadFile(key + ".pub")
	os.WriteFile(trusted, pub, 0o644)
	if r := runBPX(t, nil, "verify", "--trusted", trusted, pkg); r.Code != exitOK {
		t.Errorf("verify of the package signed with the encrypted key: %+v", r)
	}
	if r := runBPX(t, nil, "sign", "--key", key, "--passphrase-file", passFile, pkg); r.Code != exitOK {
		t.Errorf("sign --passphrase-file: %+v", r)
	}
}

// TestSignVerify: bpx sign (in place, and -o) and bpx pack --key make
// packages that bpx verify --trusted passes, naming the signer; a flipped
// byte, a key not trusted and an unsigned package each fail with exit 1.
func TestSignVerify(t *testing.T) {
	f := newSignFixture(t)
	pub, err := os.ReadFile(f.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	id := pubKey(t, f.key+".pub").ID()

	signedOut := filepath.Join(f.dir, "signed-out.bpx")
	r := runBPX(t, nil, "sign", "--key", f.key, "-o", signedOut, f.plain)
	if r.Code != exitOK || !strings.Contains(r.Stdout, id) || !strings.Contains(r.Stdout, "modder@example.org") {
		t.Fatalf("sign -o: %+v", r)
	}
	inPlace := filepath.Join(f.dir, "in-place.bpx")
	copyFile(t, f.plain, inPlace)
	if r := runBPX(t, nil, "sign", "--key", f.key, inPlace); r.Code != exitOK {
		t.Fatalf("sign in place: %+v", r)
	}
	for _, pkg := range []string{signedOut, inPlace} {
		checkSignedPackage(t, f, pkg, id)
	}
	packed := signedOut
	bad := map[string]string{
		"tampered":  tamper(t, signedOut, ".tampered"),
		"untrusted": f.signed(t, "other.bpx", f.other),
		"unsigned":  f.plain,
	}
	for what, pkg := range bad {
		r := runBPX(t, nil, "verify", "--trusted", f.trusted, pkg)
		if r.Code != exitFail || !strings.Contains(r.Stdout, "FAILED") || r.Stderr == "" {
			t.Errorf("verify --trusted of the %s package: %+v", what, r)
		}
	}
	r = runBPX(t, nil, "verify", "--trusted", f.trusted, bad["untrusted"])
	if !strings.Contains(r.Stderr, "no trusted key") {
		t.Errorf("verify of the package by another key does not say so: %+v", r)
	}
	r = runBPX(t, nil, "verify", "--trusted", f.trusted, bad["unsigned"])
	if !strings.Contains(r.Stderr, "not signed") {
		t.Errorf("verify of the unsigned package does not say so: %+v", r)
	}
	// A trusted-keys file with a bad line is refused, naming the line.
	garbage := filepath.Join(f.dir, "garbage.keys")
	os.WriteFile(garbage, append(pub, "not a key\n"...), 0o644)
	if r := runBPX(t, nil, "verify", "--trusted", garbage, packed); r.Code != exitFail || !strings.Contains(r.Stderr, "line 2") {
		t.Errorf("verify with a bad trusted-keys file: %+v", r)
	}
	// A comment of the trusted-keys file reaches the terminal escaped.
	hostile := filepath.Join(f.dir, "hostile.keys")
	line := strings.Fields(string(pub))
	os.WriteFile(hostile, []byte(line[0]+" "+line[1]+" evil\x1b]0;owned\a\n"), 0o644)
	if r := runBPX(t, nil, "verify", "--trusted", hostile, packed); r.Code != exitOK || strings.ContainsAny(r.Stdout, "\x1b\a") || !strings.Contains(r.Stdout, `evil\x1b]0;owned\a`) {
		t.Errorf("verify with a hostile comment: %q", r.Stdout)
	}
	// A public key given to --key is refused with a hint.
	if r := runBPX(t, nil, "sign", "--key", f.key+".pub", "-o", filepath.Join(f.dir, "x.bpx"), f.plain); r.Code != exitFail || !strings.Contains(r.Stderr, "public key") {
		t.Errorf("sign --key KEY.pub: %+v", r)
	}
}

// checkSignedPackage checks that the package pkg, signed by the key id of
// f, passes verify --trusted, which names the signer, and reads as the
// unsigned package does in readers that do not check signatures.
func checkSignedPackage(t *testing.T, f signFixture, pkg, id string) {
	t.Helper()
	r := runBPX(t, nil, "verify", "--trusted", f.trusted, pkg)
	if r.Code != exitOK || !strings.Contains(r.Stdout, "ok, signed by "+id+" (modder@example.org)") {
		t.Errorf("verify --trusted %s: %+v", filepath.Base(pkg), r)
	}
	if r := runBPX(t, nil, "verify", pkg); r.Code != exitOK {
		t.Errorf("verify %s: %+v", filepath.Base(pkg), r)
	}
	if r := runBPX(t, nil, "cat", pkg, "a.txt"); r.Stdout != marker {
		t.Errorf("cat %s: %+v", filepath.Base(pkg), r)
	}
}

// TestInfoSignature: bpx info and info --json say who signed a package and
// whether it matches, and that an unsigned one is not signed.
func TestInfoSignature(t *testing.T) {
	f := newSignFixture(t)
	good := f.signed(t, "good.bpx", f.key)
	k := pubKey(t, f.key+".pub")
	r := runBPX(t, nil, "info", good)
	if r.Code != exitOK || !strings.Contains(r.Stdout, "signature: signed by "+k.ID()) || !strings.Contains(r.Stdout, "matches") {
		t.Errorf("info of a signed package:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stdout, "0xf0 signature") {
		t.Errorf("info does not name the signature section:\n%s", r.Stdout)
	}
	r = runBPX(t, nil, "info", "--json", good)
	for _, want := range []string{`"signed": true`, `"id": "` + k.ID() + `"`, `"valid": true`, `"matches": true`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("info --json lacks %s:\n%s", want, r.Stdout)
		}
	}
	// A malformed signature section: info says so, and still succeeds.
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("BPXSIG"))
	if i < 0 {
		t.Fatal("no signature section magic")
	}
	b[i+2] ^= 0x20
	broken := filepath.Join(f.dir, "broken.bpx")
	os.WriteFile(broken, b, 0o644)
	if r := runBPX(t, nil, "info", broken); r.Code != exitOK || !strings.Contains(r.Stdout, "signature: signed; does NOT match: ") {
		t.Errorf("info of a package with a broken signature section:\n%s", r.Stdout)
	}
	if r := runBPX(t, nil, "info", f.plain); r.Code != exitOK || !strings.Contains(r.Stdout, "signature: none") {
		t.Errorf("info of an unsigned package:\n%s", r.Stdout)
	}
	if r := runBPX(t, nil, "info", "--json", f.plain); !strings.Contains(r.Stdout, `"signed": false`) {
		t.Errorf("info --json of an unsigned package:\n%s", r.Stdout)
	}
}

// TestVerifyTrustedURL: bpx verify --trusted of a URL served on 127.0.0.1
// passes the signed package and fails the tampered one.
func TestVerifyTrustedURL(t *testing.T) {
	f := newSignFixture(t)
	www := filepath.Join(f.dir, "www")
	os.Mkdir(www, 0o755)
	good := filepath.Join(www, "good.bpx")
	if r := runBPX(t, nil, "sign", "--key", f.key, "-o", good, f.plain); r.Code != exitOK {
		t.Fatal(r)
	}
	tamper(t, good, ".tampered")
	srv := httptest.NewServer(http.FileServer(http.Dir(www)))
	defer srv.Close()
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, srv.URL+"/good.bpx"); r.Code != exitOK || !strings.Contains(r.Stdout, "ok, signed by") {
		t.Errorf("verify --trusted URL: %+v", r)
	}
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, srv.URL+"/good.bpx.tampered"); r.Code != exitFail {
		t.Errorf("verify --trusted of a tampered URL: %+v", r)
	}
}

// TestSignWithSSHKey: a key made by ssh-keygen -t ed25519 (a modder's
// ~/.ssh/id_ed25519) signs, and its .pub line is a trusted key.
func TestSignWithSSHKey(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("no ssh-keygen")
	}
	f := newSignFixture(t)
	key := filepath.Join(f.dir, "id_ed25519")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "me@host", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pkg := filepath.Join(f.dir, "p.bpx")
	if r := runBPX(t, nil, "sign", "--key", key, "-o", pkg, f.plain); r.Code != exitOK || !strings.Contains(r.Stdout, "me@host") {
		t.Fatalf("sign with an ssh-keygen key: %+v", r)
	}
	if r := runBPX(t, nil, "verify", "--trusted", key+".pub", pkg); r.Code != exitOK {
		t.Errorf("verify --trusted id_ed25519.pub: %+v", r)
	}
}

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pubKey returns the public key in the file name.
func pubKey(t *testing.T, name string) sign.PublicKey {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sign.ParsePublicKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestVerifyTrustedURLReadsOnce: bpx verify --trusted of a URL fetches
// each byte of the package about once, as bpx verify does: the sections
// are checked through the verified reader, and only bytes outside every
// section are read again to check them. It fetched the package twice
// (the checks, then sign.Verified.VerifyAll) when it was larger than
// the remote cache.
func TestVerifyTrustedURLReadsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("serves a 24 MiB package")
	}
	f := newSignFixture(t)
	www := filepath.Join(f.dir, "www")
	big := make([]byte, 24<<20)
	rand.NewChaCha8([32]byte{25}).Read(big)
	writeFiles(t, filepath.Join(f.dir, "one"), map[string]string{"big.bin": string(big)})
	pkg := filepath.Join(www, "one.bpx")
	os.Mkdir(www, 0o755)
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "--key", f.key, "-o", pkg, filepath.Join(f.dir, "one")); r.Code != exitOK {
		t.Fatal(r)
	}
	fi, err := os.Stat(pkg)
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	files := http.FileServer(http.Dir(www))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(countingWriter{w, &sent}, r)
	}))
	defer srv.Close()
	if r := runBPX(t, nil, "verify", "-q", "--trusted", f.trusted, srv.URL+"/one.bpx"); r.Code != exitOK {
		t.Fatalf("verify --trusted URL: %+v", r)
	}
	// The head request (remote.DefaultHeadSize) and the first blocks
	// after it overlap.
	if got, limit := sent.Load(), fi.Size()+2<<20; got > limit {
		t.Errorf("verify --trusted of a %d-byte package fetched %d bytes, want at most %d", fi.Size(), got, limit)
	}
}

// countingWriter counts the body bytes written through it.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// TestVerifyTrustedGap: verify --trusted checks the bytes between
// sections too: a file whose first section is followed by bytes no
// section holds passes when they are as signed, and fails when one of
// them changed after signing.
func TestVerifyTrustedGap(t *testing.T) {
	f := newSignFixture(t)
	b := testbpx.Container(t, 'X', [16]byte{}, bpx.SectionOptions{},
		testbpx.Section{Type: 0x10, Data: []byte("section" + strings.Repeat("GAP", 70000))}, testbpx.Section{Type: 0x11, Data: []byte("second")})
	// Section 0 ends after "section": 210,000 bytes of "GAPGAP...", whole
	// chunks of them (64 KiB), lie in no section.
	table := b[bpx.MainHeaderSize : bpx.MainHeaderSize+2*bpx.SectionHeaderSize]
	binary.LittleEndian.PutUint32(table[8:], 7)  // CSize
	binary.LittleEndian.PutUint32(table[12:], 7) // USize
	sum := bpx.WeakChecksum(0, b[0:4])
	sum = bpx.WeakChecksum(sum, b[8:bpx.MainHeaderSize])
	binary.LittleEndian.PutUint32(b[4:], bpx.WeakChecksum(sum, table))
	plain := filepath.Join(f.dir, "gap.bpx")
	if err := os.WriteFile(plain, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBPX(t, nil, "verify", plain); r.Code != exitOK {
		t.Fatalf("the fixture does not verify: %+v", r)
	}
	signed := filepath.Join(f.dir, "gap-signed.bpx")
	if r := runBPX(t, nil, "sign", "--key", f.key, "-o", signed, plain); r.Code != exitOK {
		t.Fatal(r)
	}
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, signed); r.Code != exitOK {
		t.Errorf("verify --trusted of the signed file with a gap: %+v", r)
	}
	sb, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	sb[bytes.Index(sb, []byte("GAPGAP"))+100000] ^= 1
	os.WriteFile(signed, sb, 0o644)
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, signed); r.Code != exitFail || !strings.Contains(r.Stderr, "does not match") {
		t.Errorf("verify --trusted of a file with a changed byte between sections: %+v", r)
	}
}

// TestSignRefusesOpenKey: a secret key file that others can read (0644)
// is refused, as ssh refuses it, with the fix in the message; 0600 and
// 0400 sign.
func TestSignRefusesOpenKey(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	f := newSignFixture(t)
	out := filepath.Join(f.dir, "out.bpx")
	for _, c := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o644, false}, {0o640, false}, {0o604, false}, {0o600, true}, {0o400, true}} {
		if err := os.Chmod(f.key, c.mode); err != nil {
			t.Fatal(err)
		}
		r := runBPX(t, nil, "sign", "--key", f.key, "-o", out, f.plain)
		if ok := r.Code == exitOK; ok != c.ok || (!ok && !strings.Contains(r.Stderr, "chmod 600")) {
			t.Errorf("key mode %#o: %+v", c.mode, r)
		}
	}
}
