package sign_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"golang.org/x/crypto/ssh"
)

// mustFail checks that the file fails Open with ring with an error
// matching bpx.ErrSignature, and that Inspect says what is wrong.
func mustFail(t *testing.T, what string, file []byte, r *sign.KeyRing) error {
	t.Helper()
	v, err := open(file, r)
	if err == nil || v != nil || !errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("%s: Open = %v, %v", what, v, err)
	}
	st, ierr := sign.Inspect(bytes.NewReader(file), int64(len(file)))
	if ierr != nil {
		t.Fatalf("%s: Inspect: %v", what, ierr)
	}
	ok := st.Signed && st.Matches && st.Problem == nil && len(st.Signatures) > 0
	for _, s := range st.Signatures {
		ok = ok && s.Valid
	}
	if ok && errors.Is(err, sign.ErrTampered) {
		t.Fatalf("%s: Inspect finds nothing wrong: %+v (Open: %v)", what, st, err)
	}
	return err
}

// TestEveryBitOfTheSignatureSection: a flipped bit anywhere in the
// signature section fails Open and shows in Inspect.
func TestEveryBitOfTheSignatureSection(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	lay := parseFileLayout(t, signed)
	for i := lay.end * 8; i < lay.sigEnd*8; i++ {
		f := bytes.Clone(signed)
		f[i/8] ^= 1 << (i % 8)
		mustFail(t, fmt.Sprintf("bit %d of byte %d", i%8, i/8), f, ring(k))
	}
}

// TestEveryBitOfTheHeaderAndTable: a flipped bit in the main header or
// the section table fails Open.
func TestEveryBitOfTheHeaderAndTable(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	lay := parseFileLayout(t, signed)
	for i := int64(0); i < lay.start*8; i++ {
		f := bytes.Clone(signed)
		f[i/8] ^= 1 << (i % 8)
		if v, err := open(f, ring(k)); err == nil || v != nil || !errors.Is(err, bpx.ErrSignature) {
			t.Fatalf("bit %d of byte %d: %v", i%8, i/8, err)
		}
		// With the checksum made right again, as an attacker would
		// (which undoes a flip of the checksum itself).
		if i/8 >= 4 && i/8 < 8 {
			continue
		}
		rebuild(f)
		if _, err := open(f, ring(k)); err == nil {
			t.Fatalf("bit %d of byte %d, checksum fixed: no error", i%8, i/8)
		}
	}
}

// TestEveryBitOfTheData: a flipped data bit opens (the header matches)
// but no read returns the chunk, and VerifyAll fails.
func TestEveryBitOfTheData(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	lay := parseFileLayout(t, signed)
	for i := lay.start * 8; i < lay.end*8; i++ {
		f := bytes.Clone(signed)
		f[i/8] ^= 1 << (i % 8)
		v, err := open(f, ring(k))
		if err != nil {
			t.Fatalf("bit %d of byte %d: %v", i%8, i/8, err)
		}
		if err := v.VerifyAll(); !errors.Is(err, sign.ErrTampered) {
			t.Fatalf("bit %d of byte %d: VerifyAll: %v", i%8, i/8, err)
		}
		p := make([]byte, 1)
		if n, err := v.ReadAt(p, i/8); n != 0 || !errors.Is(err, sign.ErrTampered) || p[0] != 0 {
			t.Fatalf("bit %d of byte %d: ReadAt = %d, %v, %#x", i%8, i/8, n, err, p[0])
		}
	}
}

// TestTamperedChunk: data changed after signing (same size) opens, reads
// of other chunks succeed, and no byte of the changed chunk is returned.
func TestTamperedChunk(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 300<<10, 0), k)
	lay := parseFileLayout(t, signed)
	f := bytes.Clone(signed)
	bad := lay.start + sign.ChunkSize + 5
	f[bad] ^= 0x80
	v, err := open(f, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	c0 := make([]byte, sign.ChunkSize)
	if n, err := v.ReadAt(c0, lay.start); err != nil || n != len(c0) || !bytes.Equal(c0, f[lay.start:lay.start+sign.ChunkSize]) {
		t.Fatalf("chunk 0: %d, %v", n, err)
	}
	rng := fmt.Sprintf("[%d, %d)", lay.start+sign.ChunkSize, lay.start+2*sign.ChunkSize)
	for _, c := range []struct {
		off int64
		n   int
	}{{lay.start, 3 * sign.ChunkSize}, {lay.start + 100, 2 * sign.ChunkSize}, {bad - 2, 4}, {bad, 1}, {lay.start + sign.ChunkSize, sign.ChunkSize}} {
		p := make([]byte, c.n)
		n, err := v.ReadAt(p, c.off)
		good := int(max(0, lay.start+sign.ChunkSize-c.off))
		if n != good || !errors.Is(err, sign.ErrTampered) || !errors.Is(err, bpx.ErrSignature) || !strings.Contains(err.Error(), rng) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d and an error naming %s", c.n, c.off, n, err, good, rng)
		}
		if !bytes.Equal(p[:n], f[c.off:c.off+int64(n)]) {
			t.Fatalf("ReadAt(%d bytes, %d): wrong bytes", c.n, c.off)
		}
		if i := bytes.IndexByte(p[n:], f[bad]); c.off <= bad && i == int(bad-c.off)-n {
			t.Fatalf("ReadAt(%d bytes, %d): the tampered byte is in the buffer", c.n, c.off)
		}
		if !bytes.Equal(p[n:], make([]byte, len(p)-n)) {
			t.Fatalf("ReadAt(%d bytes, %d): bytes of the tampered chunk in the buffer", c.n, c.off)
		}
	}
	c2 := make([]byte, 100)
	if _, err := v.ReadAt(c2, lay.start+2*sign.ChunkSize); err != nil {
		t.Fatalf("chunk 2: %v", err)
	}
	if err := v.VerifyAll(); !errors.Is(err, sign.ErrTampered) || !strings.Contains(err.Error(), rng) {
		t.Fatalf("VerifyAll: %v", err)
	}
	r, err := bpx.NewReader(v, v.Size())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sections[0].Data(); !errors.Is(err, bpx.ErrSignature) {
		t.Fatalf("section 0 through the container reader: %v", err)
	}
	// The file on disk changes after Open: VerifyAll sees the header too.
	f[10] ^= 1
	if err := v.VerifyAll(); !errors.Is(err, sign.ErrTampered) {
		t.Fatalf("VerifyAll of a changed header: %v", err)
	}
}

// TestTruncatedAndAppended: a signed file cut anywhere, or with bytes
// after its end, fails Open.
func TestTruncatedAndAppended(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	for n := range len(signed) {
		mustFail(t, fmt.Sprintf("cut at %d", n), signed[:n], ring(k))
	}
	for _, extra := range []string{"\x00", "appended bytes"} {
		err := mustFail(t, "appended", append(bytes.Clone(signed), extra...), ring(k))
		if !errors.Is(err, sign.ErrTampered) || !strings.Contains(err.Error(), "signature section ends") {
			t.Fatalf("appended %q: %v", extra, err)
		}
	}
	// A reader shorter than the size it is said to have.
	if _, err := sign.Open(bytes.NewReader(signed[:len(signed)-5]), int64(len(signed)), ring(k)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short reader: %v", err)
	}
	if _, err := sign.Inspect(bytes.NewReader(signed[:len(signed)-5]), int64(len(signed))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short reader, Inspect: %v", err)
	}
}

// TestRearranged: duplicated, reordered, moved, stripped and transplanted
// signature sections and sections fail Open.
func TestRearranged(t *testing.T) {
	k := testKey(t, "k")
	orig := container(t, 1000, 1000)
	signed := signBytes(t, orig, k)
	main, ps := parts(t, signed)
	n := len(ps) - 1
	sig := ps[n]
	cat := func(pp ...[]part) []part {
		var out []part
		for _, p := range pp {
			out = append(out, p...)
		}
		return out
	}
	swapped := cat(ps[:n])
	swapped[0], swapped[1] = swapped[1], swapped[0]
	other := signBytes(t, container(t, 1000, 2000), k)
	_, ops := parts(t, other)

	for _, c := range []struct {
		name string
		file []byte
		want error
	}{
		{"duplicated signature section", assemble(main, cat(ps, []part{sig})), sign.ErrTampered},
		{"signature section first", assemble(main, cat([]part{sig}, ps[:n])), sign.ErrTampered},
		{"sections reordered", assemble(main, cat(swapped, []part{sig})), sign.ErrTampered},
		{"section dropped", assemble(main, cat(ps[1:n], []part{sig})), sign.ErrTampered},
		{"signature section of another file", assemble(main, cat(ps[:n], ops[len(ops)-1:])), sign.ErrTampered},
		{"signature stripped", assemble(main, ps[:n]), sign.ErrUnsigned},
		{"unsigned", orig, sign.ErrUnsigned},
	} {
		if err := mustFail(t, c.name, c.file, ring(k)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// The table reordered in place, data left where it is: the error names
	// the section and the field.
	f := bytes.Clone(signed)
	e0 := bytes.Clone(f[40:64])
	copy(f[40:64], f[64:88])
	copy(f[64:88], e0)
	err := mustFail(t, "table reordered", rebuild(f), ring(k))
	if !strings.Contains(err.Error(), "section 0: Pointer") {
		t.Errorf("table reordered: %v", err)
	}
}

// TestUntrusted: a file signed by a key not in the ring is ErrUntrusted,
// naming the key that signed.
func TestUntrusted(t *testing.T) {
	k, other := testKey(t, "k"), testKey(t, "other")
	signed := signBytes(t, container(t, 100, 100), k)
	_, err := open(signed, ring(other))
	if !errors.Is(err, sign.ErrUntrusted) || !errors.Is(err, bpx.ErrSignature) || !strings.Contains(err.Error(), k.Public().ID()) {
		t.Fatalf("untrusted: %v", err)
	}
	if _, err := open(signed, nil); !errors.Is(err, sign.ErrUntrusted) {
		t.Fatalf("nil ring: %v", err)
	}
}

// sshsigBlob returns an SSHSIG blob of msg by signer, made as
// PROTOCOL.sshsig says (for key types package sign does not make).
func sshsigBlob(t *testing.T, signer ssh.Signer, pub []byte, msg []byte) []byte {
	t.Helper()
	h := sha512.Sum512(msg)
	signed := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Namespace, Reserved, HashAlg string
		Hash                         []byte
	}{"bpx", "", "sha512", h[:]})...)
	sig, err := signer.Sign(rand.Reader, signed)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte("SSHSIG"), ssh.Marshal(struct {
		Version                      uint32
		PublicKey                    []byte
		Namespace, Reserved, HashAlg string
		Signature                    []byte
	}{1, pub, "bpx", "", "sha512", ssh.Marshal(sig)})...)
}

// shortEd25519 is the wire form of an "ssh-ed25519" key of 31 bytes.
var shortEd25519 = ssh.Marshal(struct {
	Type string
	Key  []byte
}{"ssh-ed25519", make([]byte, 31)})

// TestWrongKeys: keys of another algorithm or length, in the trusted
// keys or in a signature, are refused with an error naming them.
func TestWrongKeys(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecSigner, err := ssh.NewSignerFromKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	ecLine := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ecSigner.PublicKey())))
	// A ring of such keys only trusts nobody; beside an Ed25519 key, they
	// are skipped, as ssh-keygen reads them (they sign no BPX file).
	if _, err := sign.ParseKeyRing([]byte("# keys\n\n" + ecLine + " ec\n")); !errors.Is(err, bpx.ErrUnsupported) ||
		!strings.Contains(err.Error(), "ecdsa-sha2-nistp256") {
		t.Errorf("ecdsa key in the ring: %v", err)
	}
	if r, err := sign.ParseKeyRing([]byte(ecLine + " ec\nbob " + ecLine + "\n" + testKey(t, "k").Public().String() + "\n")); err != nil || len(r.Keys()) != 1 {
		t.Errorf("ecdsa keys beside an Ed25519 key: %v", err)
	}
	short := "ssh-ed25519 " + base64.StdEncoding.EncodeToString(shortEd25519) + " short"
	if _, err := sign.ParseKeyRing([]byte(testKey(t, "k").Public().String() + "\n" + short + "\n")); !errors.Is(err, bpx.ErrFormat) ||
		!strings.Contains(err.Error(), "line 2") {
		t.Errorf("31-byte ed25519 key in the ring: %v", err)
	}

	// Signatures by such keys in the file: they do not verify.
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	lay := parseFileLayout(t, signed)
	body := parseSigBody(t, signed[lay.end:])
	edSigner, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(make([]byte, 32)))
	if err != nil {
		t.Fatal(err)
	}
	for name, blob := range map[string][]byte{
		"ecdsa":              sshsigBlob(t, ecSigner, ecSigner.PublicKey().Marshal(), body.manifest),
		"31-byte ed25519":    sshsigBlob(t, edSigner, shortEd25519, body.manifest),
		"ed25519, truncated": body.sigs[0][:len(body.sigs[0])-1],
	} {
		f := withSigBody(t, signed, sigBody{body.manifest, [][]byte{blob}}.marshal())
		if err := mustFail(t, name, f, ring(k)); !errors.Is(err, sign.ErrTampered) {
			t.Errorf("%s signature: %v", name, err)
		}
		st, err := sign.Inspect(bytes.NewReader(f), int64(len(f)))
		if err != nil || len(st.Signatures) != 1 || st.Signatures[0].Valid || st.Matches || !errors.Is(st.Problem, sign.ErrTampered) {
			t.Errorf("%s signature: Inspect %+v, %v", name, st, err)
		}
		// Beside a good signature too: a signed file holds only
		// signatures that verify.
		f = withSigBody(t, signed, sigBody{body.manifest, [][]byte{body.sigs[0], blob}}.marshal())
		if err := mustFail(t, name+" after a good one", f, ring(k)); !errors.Is(err, sign.ErrTampered) || !strings.Contains(err.Error(), "signature 2 of 2") {
			t.Errorf("%s signature after a good one: %v", name, err)
		}
	}
}

// TestKeyRingGarbage: a trusted-keys file with a line that is no key is
// an error naming the line.
func TestKeyRingGarbage(t *testing.T) {
	good := testKey(t, "k").Public().String()
	for _, c := range []struct {
		file string
		line int
	}{
		{good + "\ngarbage\n", 2},
		{"# c\n\n" + good + "\nssh-ed25519 !!!notbase64 x\n", 4},
		{"\x00\xff\xfe\n", 1},
		{"alice ssh-ed25519\n", 1},
	} {
		_, err := sign.ParseKeyRing([]byte(c.file))
		if !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), fmt.Sprintf("line %d", c.line)) {
			t.Errorf("%q: %v", c.file, err)
		}
	}
	if _, err := sign.ParseKeyRing([]byte("# nobody\n")); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("no key: %v", err)
	}
}

// TestHugeSignatureSectionHeader: a signature section header declaring
// more than the file holds is refused before anything is allocated.
func TestHugeSignatureSectionHeader(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 100, 0), k)
	main, ps := parts(t, signed)
	for _, size := range []uint32{sign.MaxSectionSize, sign.MaxSectionSize + 1, 1<<32 - 1} {
		last := &ps[len(ps)-1]
		last.hdr.CSize, last.hdr.USize = size, size
		f := assemble(main, ps) // the body as it was: the header lies
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := mustFail(t, fmt.Sprintf("section of %d bytes", size), f, ring(k))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, sign.ErrTampered) {
			t.Errorf("size %d: %v", size, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("size %d: Open and Inspect allocated %d bytes", size, d)
		}
	}
}

// TestConcurrentReads: many goroutines reading a Verified get the file's
// bytes (run with -race).
func TestConcurrentReads(t *testing.T) {
	k := testKey(t, "k")
	signed := signBytes(t, container(t, 1<<20+1234, 0), k)
	v, err := open(signed, ring(k))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := make([]byte, 5000+g*997)
			for off := int64(g * 13); off < int64(len(signed)); off += int64(len(p)) - 7 {
				n, err := v.ReadAt(p, off)
				if (err != nil && err != io.EOF) || !bytes.Equal(p[:n], signed[off:off+int64(n)]) {
					errs <- fmt.Errorf("goroutine %d at %d: %d bytes, %v", g, off, n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestEverySignatureVerifies: a signed file with a signature added that
// does not verify (junk, or a second signature with a flipped bit) is
// refused, though a trusted key's signature verifies: a Verified returned
// those bytes as checked, and bpx info and verify disagreed. Inspect
// reports it too.
func TestEverySignatureVerifies(t *testing.T) {
	k, other := testKey(t, "k"), testKey(t, "other")
	twice := signBytes(t, signBytes(t, container(t, 1000, 1000), k), other)
	body := parseSigBody(t, twice[parseFileLayout(t, twice).end:])
	flipped := bytes.Clone(body.sigs[1])
	flipped[len(flipped)-5] ^= 1
	for name, sigs := range map[string][][]byte{
		"junk":                 {body.sigs[0], []byte("junk!")},
		"second flipped":       {body.sigs[0], flipped},
		"a good one repeated":  {body.sigs[0], body.sigs[1], body.sigs[1]},
		"64 junk after a good": append([][]byte{body.sigs[0]}, slices.Repeat([][]byte{bytes.Repeat([]byte("j"), 4000)}, 63)...),
	} {
		f := withSigBody(t, twice, sigBody{body.manifest, sigs}.marshal())
		_, err := open(f, ring(k))
		if name == "a good one repeated" {
			// Signatures that verify are what their signers wrote.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, sign.ErrTampered) {
			t.Errorf("%s: Open = %v, want ErrTampered", name, err)
		}
		if st, err := sign.Inspect(bytes.NewReader(f), int64(len(f))); err != nil || st.Matches || !errors.Is(st.Problem, sign.ErrTampered) {
			t.Errorf("%s: Inspect = %+v, %v", name, st, err)
		}
	}
}
