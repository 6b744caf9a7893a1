package pack

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// testKey returns a deterministic Ed25519 key named comment.
func testKey(t testing.TB, seed byte, comment string) *sign.PrivateKey {
	t.Helper()
	k, err := sign.GenerateKey(rand.NewChaCha8([32]byte{25, seed}), comment)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ring returns the KeyRing of the public keys of keys.
func ring(keys ...*sign.PrivateKey) *sign.KeyRing {
	var pub []sign.PublicKey
	for _, k := range keys {
		pub = append(pub, k.Public())
	}
	return sign.NewKeyRing(pub...)
}

// checkSigners fails unless p was signed by exactly want, in order.
func checkSigners(t testing.TB, p *Package, want ...*sign.PrivateKey) {
	t.Helper()
	got := p.Signers()
	if len(got) != len(want) {
		t.Fatalf("signers %v, want %d", got, len(want))
	}
	for i, k := range want {
		if !got[i].Equal(k.Public()) || got[i].ID() != k.Public().ID() {
			t.Errorf("signer %d is %v, want %v", i, got[i], k.Public())
		}
	}
}

// lastSectionType returns the type of the last section of the package b.
func lastSectionType(t testing.TB, b []byte) uint8 {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return rd.Sections[len(rd.Sections)-1].Type
}

// verifies fails unless sign.Open accepts b with the keys of want.
func verifies(t testing.TB, b []byte, want ...*sign.PrivateKey) {
	t.Helper()
	v, err := sign.Open(bytes.NewReader(b), int64(len(b)), ring(want...))
	if err != nil {
		t.Fatalf("sign.Open: %v", err)
	}
	if err := v.VerifyAll(); err != nil {
		t.Fatalf("VerifyAll: %v", err)
	}
	if n := len(v.Signers()); n != len(want) {
		t.Fatalf("%d signers, want %d", n, len(want))
	}
}

// TestSignedWriter: a package written WithSigningKey ends with a
// signature section, verifies, and opens WithTrustedKeys with every
// object, naming its signers; without trusted keys it opens as any
// package, with no signers.
func TestSignedWriter(t *testing.T) {
	a, b := testKey(t, 1, "alice@example"), testKey(t, 2, "bob@example")
	tree := testTree()
	signed := pkgBytes(t, tree, WithSigningKey(a, b), WithMetadataNames())
	if typ := lastSectionType(t, signed); typ != sign.SectionType {
		t.Fatalf("last section of type %#x, want the signature section", typ)
	}
	verifies(t, signed, a, b)

	p := openBytes(t, signed, WithTrustedKeys(ring(a, b)))
	checkTree(t, p, tree)
	checkSigners(t, p, a, b)
	if err := p.Unpack(t.TempDir()); err != nil {
		t.Fatal(err)
	}

	// Trusting one of the two keys names that one.
	checkSigners(t, openBytes(t, signed, WithTrustedKeys(ring(b))), b)

	plain := openBytes(t, signed)
	checkTree(t, plain, tree)
	if s := plain.Signers(); s != nil {
		t.Errorf("signers %v without WithTrustedKeys", s)
	}
}

// TestSignedRefused: an unsigned package, one signed by an untrusted key,
// and one whose header or tables changed after signing fail to open
// WithTrustedKeys with the sign errors, all matching bpx.ErrSignature.
func TestSignedRefused(t *testing.T) {
	a, other := testKey(t, 1, "a"), testKey(t, 3, "other")
	tree := testTree()
	signed := pkgBytes(t, tree, WithSigningKey(a))
	unsigned := pkgBytes(t, tree)

	open := func(b []byte, k *sign.KeyRing) error {
		_, err := NewReader(bytes.NewReader(b), int64(len(b)), WithTrustedKeys(k))
		return err
	}
	expect := func(what string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) || !errors.Is(err, bpx.ErrSignature) {
			t.Errorf("%s: err = %v, want %v", what, err, want)
		}
	}
	expect("unsigned", open(unsigned, ring(a)), sign.ErrUnsigned)
	expect("untrusted", open(signed, ring(other)), sign.ErrUntrusted)

	// The names (in the strings section, read at open), the object table
	// and the header's TypeExt, each changed by one bit.
	p := openBytes(t, signed)
	strs := p.Reader.FindSection(SectionStrings)
	table := p.Reader.FindSection(SectionObjectTable)
	for _, c := range []struct {
		what string
		off  int64
	}{
		{"a name", int64(strs.Pointer) + 1},
		{"the object table", int64(table.Pointer) + 12},
		{"the TypeExt", 24},
	} {
		// Two bytes changed by +1 and -1: the sum the weak checksum of
		// the tables keeps does not change.
		bad := bytes.Clone(signed)
		bad[c.off]++
		bad[c.off+1]--
		if _, err := NewReader(bytes.NewReader(bad), int64(len(bad))); c.what == "a name" && err != nil {
			t.Fatalf("%s: the change does not open without keys, the test proves nothing: %v", c.what, err)
		}
		expect(c.what, open(bad, ring(a)), sign.ErrTampered)
	}

	if _, err := New(p.Reader, WithTrustedKeys(ring(a))); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("New with WithTrustedKeys: %v", err)
	}
	if _, err := newConfig([]Option{WithTrustedKeys(nil)}); err == nil {
		t.Error("WithTrustedKeys(nil) accepted")
	}
	for _, opt := range []WriterOption{WithSigningKey(), WithSigningKey(a, nil)} {
		if err := NewWriter(io.Discard, opt).Close(); err == nil {
			t.Error("WithSigningKey without a key accepted")
		}
	}
}

// tamperedPackage returns a signed package, with data sections of 256
// KiB stored raw and without checksums (so that only the signature can
// tell), and the same package with one byte of "m-small" and one of
// "big" (300 KiB, at 200 KiB) changed. The other objects are in other
// sections, whose chunks (64 KiB of the file) hold no changed byte:
// "n-pad" keeps "z-after" away from the chunk of m-small.
func tamperedPackage(t *testing.T, k *sign.PrivateKey) (tree fstest.MapFS, signed, bad []byte) {
	t.Helper()
	rnd := rand.New(rand.NewChaCha8([32]byte{25, 9}))
	data := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		return b
	}
	tree = fstest.MapFS{
		"a-before": {Data: data(200 << 10)},
		"big":      {Data: data(300 << 10)},
		"m-small":  {Data: data(1000)},
		"n-pad":    {Data: data(128 << 10)},
		"z-after":  {Data: data(300 << 10)},
	}
	signed = pkgBytes(t, tree, WithSigningKey(k), WithCompression(bpx.CompressNone), WithChecksum(bpx.ChecksumNone), WithSectionSize(256<<10))
	bad = bytes.Clone(signed)
	for name, at := range map[string]int{"m-small": 500, "big": 200 << 10} {
		i := bytes.Index(bad, tree[name].Data)
		if i < 0 {
			t.Fatalf("%s not stored as is", name)
		}
		bad[i+at] ^= 0x80
	}
	return tree, signed, bad
}

// TestSignedTamperedData: a package whose data changed after signing
// (same size) opens, but reading an object holding a changed byte fails
// with ErrTampered and returns none of the bytes of the changed chunk,
// by every read path; the other objects read.
func TestSignedTamperedData(t *testing.T) {
	k := testKey(t, 1, "k")
	tree, _, bad := tamperedPackage(t, k)

	// Without keys only the object's CRC-32C notices the change (the
	// sections have no checksum): the bytes did change, and a reader
	// without keys cannot tell a tampered package from a damaged one.
	if _, err := fs.ReadFile(openBytes(t, bad), "m-small"); !errors.Is(err, bpx.ErrChecksum) || errors.Is(err, sign.ErrTampered) {
		t.Fatalf("unsigned read of the changed object: %v", err)
	}

	p := openBytes(t, bad, WithTrustedKeys(ring(k)))
	tampered := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, sign.ErrTampered) || !errors.Is(err, bpx.ErrSignature) {
			t.Errorf("%s: err = %v, want ErrTampered", what, err)
		}
	}
	// (n-pad shares the section of m-small, which the cache reads whole:
	// its read may fail too.)
	for _, name := range []string{"a-before", "z-after"} {
		if got, err := fs.ReadFile(p, name); err != nil || !bytes.Equal(got, tree[name].Data) {
			t.Errorf("%s: %v", name, err)
		}
	}
	got, err := fs.ReadFile(p, "m-small")
	tampered("ReadFile", err)
	if len(got) != 0 {
		t.Errorf("ReadFile returned %d bytes", len(got))
	}
	for idx, o := range p.Objects() {
		if o.Name != "m-small" {
			continue
		}
		got, err := p.ReadObject(idx)
		tampered("ReadObject", err)
		if len(got) != 0 {
			t.Errorf("ReadObject returned %d bytes", len(got))
		}
		r, err := p.OpenObject(idx)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 10)
		n, err := r.ReadAt(buf, 495)
		tampered("ObjectReader.ReadAt", err)
		if n != 0 {
			t.Errorf("ReadAt returned %d bytes", n)
		}
		r.Close()
	}
	f, err := p.Open("m-small")
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.Read(make([]byte, 2000))
	tampered("File.Read", err)
	if n != 0 {
		t.Errorf("File.Read returned %d bytes", n)
	}
	f.Close()

	// A large object streams (without a section cache, chunk by chunk):
	// what it returns before the error is good, and stops before the
	// chunk with the changed byte.
	for _, cache := range []int64{DefaultCacheSize, 0} {
		p := openBytes(t, bad, WithTrustedKeys(ring(k)), WithCacheSize(cache))
		f, err := p.Open("big")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		tampered("big", err)
		if len(got) > 200<<10 || !bytes.Equal(got, tree["big"].Data[:len(got)]) {
			t.Errorf("big, cache %d: %d bytes returned, not a good prefix before the change", cache, len(got))
		}
		if cache == 0 && len(got) == 0 {
			t.Error("big, streamed: none of the good chunks before the change returned")
		}
	}

	// Unpacking fails and leaves no file of a changed object.
	dir := t.TempDir()
	tampered("Unpack", p.Unpack(dir))
	for _, name := range []string{"m-small", "big"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Unpack left %s: %v", name, err)
		}
	}
}

// TestSignedWithinSectionLimit: a signed package of objects that fill
// the section limit keeps within it, signature section included.
func TestSignedWithinSectionLimit(t *testing.T) {
	k := testKey(t, 1, "k")
	files := distinctFiles(338, 1024, 1)
	b := pkgBytes(t, files, WithSectionSize(1024), WithCompression(bpx.CompressNone), WithSigningKey(k))
	if n := referenceReadable(t, b); n > bpx.ReferenceMaxSections {
		t.Fatalf("%d sections", n)
	}
	verifies(t, b, k)
	checkTree(t, openBytes(t, b, WithTrustedKeys(ring(k))), files)

	// So does an edit that adds as many again, re-signed.
	more := distinctFiles(100, 1024, 2)
	for name, f := range more {
		files["more/"+name] = f
	}
	out := edited(t, b, func(e *Editor) error { return e.AddFS(files, "more") }, WithSectionSize(1024), WithCompression(bpx.CompressNone), WithSigningKey(k))
	if n := referenceReadable(t, out); n > bpx.ReferenceMaxSections {
		t.Fatalf("edited: %d sections", n)
	}
	checkTree(t, openBytes(t, out, WithTrustedKeys(ring(k))), files)

	small := pkgBytes(t, testTree(), WithSectionSize(4096), WithMaxSections(5), WithSigningKey(k))
	if n := referenceReadable(t, small); n > 5 {
		t.Errorf("WithMaxSections(5): %d sections", n)
	}
	if err := NewWriter(io.Discard, WithMaxSections(4), WithSigningKey(k)).Close(); err == nil {
		t.Error("WithMaxSections(4) with a signing key accepted: no room for the signature")
	}
}

// TestEditSigned: an edit of a signed package without a key removes the
// signature and says so; with a key it signs the result anew; an edit of
// an unsigned package removes nothing.
func TestEditSigned(t *testing.T) {
	a, b := testKey(t, 1, "a"), testKey(t, 2, "b")
	tree := editTree()
	signed := pkgBytes(t, tree, WithSigningKey(a), WithSectionSize(4096))
	addNew := func(e *Editor) error { return writeObject(e, "new.txt", []byte("new")) }
	want := clone(tree)
	want["new.txt"] = &fstest.MapFile{Data: []byte("new")}

	edit := func(src []byte, opts ...WriterOption) ([]byte, *Editor) {
		t.Helper()
		return editedBy(t, src, addNew, opts...)
	}

	out, e := edit(signed)
	if !e.SignatureRemoved() {
		t.Error("SignatureRemoved is false after an edit without a key")
	}
	if typ := lastSectionType(t, out); typ == sign.SectionType {
		t.Fatal("the edit kept the stale signature section")
	}
	_, err := NewReader(bytes.NewReader(out), int64(len(out)), WithTrustedKeys(ring(a)))
	if !errors.Is(err, sign.ErrUnsigned) {
		t.Errorf("opening the edit with keys: %v, want ErrUnsigned", err)
	}
	checkTree(t, openBytes(t, out), want)

	// An edit that changes nothing still drops the signature.
	same, e := editedBy(t, signed, func(*Editor) error { return nil })
	if !e.SignatureRemoved() || lastSectionType(t, same) == sign.SectionType {
		t.Error("an empty edit kept the signature")
	}

	out, e = edit(signed, WithSigningKey(b))
	if e.SignatureRemoved() {
		t.Error("SignatureRemoved after re-signing")
	}
	verifies(t, out, b)
	p := openBytes(t, out, WithTrustedKeys(ring(a, b)))
	checkSigners(t, p, b) // a's signature is gone with the old manifest
	checkTree(t, p, want)

	if _, e = edit(pkgBytes(t, tree)); e.SignatureRemoved() {
		t.Error("SignatureRemoved for an unsigned source")
	}

	// EditFile and EditFileTo, re-signing and not.
	dir := t.TempDir()
	name := filepath.Join(dir, "p.bpx")
	if err := os.WriteFile(name, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EditFileTo(name, filepath.Join(dir, "out.bpx"), addNew, WithSigningKey(a)); err != nil {
		t.Fatal(err)
	}
	q, err := Open(filepath.Join(dir, "out.bpx"), WithTrustedKeys(ring(a)))
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, q, want)
	q.Close()
	if err := EditFile(name, addNew); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if lastSectionType(t, data) == sign.SectionType {
		t.Error("EditFile without a key kept the signature")
	}
	checkTree(t, openBytes(t, data), want)
}

// TestSignedPatch: WritePatch into a Writer WithSigningKey writes a
// signed patch that layers like an unsigned one.
func TestSignedPatch(t *testing.T) {
	k := testKey(t, 1, "k")
	a := testTree()
	bTree := clone(a)
	delete(bTree, "hello.txt")
	bTree["added.txt"] = &fstest.MapFile{Data: []byte("added")}
	pa, pb := openBytes(t, pkgBytes(t, a)), openBytes(t, pkgBytes(t, bTree))
	changes, err := Diff(pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, WithSigningKey(k))
	if err := WritePatch(w, pa, pb, changes); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes(), WithTrustedKeys(ring(k)))
	checkSigners(t, p, k)
	if removed, err := p.Removed(); err != nil || len(removed) != 1 || removed[0] != "hello.txt" {
		t.Errorf("Removed = %v, %v", removed, err)
	}
	// Diff of two signed packages sees the files only.
	sa := openBytes(t, pkgBytes(t, a, WithSigningKey(k)), WithTrustedKeys(ring(k)))
	if ch, err := Diff(sa, pa); err != nil || len(ch) != 0 {
		t.Errorf("Diff of a signed package and its unsigned twin: %v, %v", ch, err)
	}
}

// TestSigningTempFiles: the unsigned package waits in a temporary file of
// the WithTempDir directory, removed after Close succeeds and after it
// fails; cancelling the context while the package is signed into the
// destination stops it with the cause.
func TestSigningTempFiles(t *testing.T) {
	k := testKey(t, 1, "k")
	tmp := t.TempDir()
	tree := editTree()
	tree["big"] = bigTree(1 << 20)["big"]
	var seen bool
	dst := writerFunc(func(p []byte) (int, error) {
		if !seen {
			ents := entries(t, tmp)
			for _, e := range ents {
				seen = seen || len(e) > 9 && e[:9] == "bpx-sign-"
			}
		}
		return len(p), nil
	})
	w := NewWriter(dst, WithSigningKey(k), WithTempDir(tmp), WithCompression(bpx.CompressNone))
	if err := w.AddFS(tree); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("no bpx-sign-* file while signing: the test proves nothing")
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// A destination that fails.
	w = NewWriter(writerFunc(func([]byte) (int, error) { return 0, errStop }), WithSigningKey(k), WithTempDir(tmp))
	if err := w.AddFS(tree); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, errStop) {
		t.Errorf("Close into a failing destination: %v", err)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left after a failure: %v", left)
	}

	// The context cancelled at the first byte signed into the destination.
	ctx, cancel := context.WithCancelCause(context.Background())
	cw := &cancelOnWrite{w: io.Discard, cancel: cancel}
	w = NewWriter(cw, WithSigningKey(k), WithTempDir(tmp), WithContext(ctx), WithCompression(bpx.CompressNone))
	if err := w.AddFS(tree); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, errStop) {
		t.Errorf("Close cancelled while signing: %v, want the cause", err)
	}
	if cw.writes != 1 {
		t.Errorf("%d writes reached the destination, want 1", cw.writes)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left after cancelling: %v", left)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
