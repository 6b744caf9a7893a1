package pack

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
)

// TestVerifyAll: issue 31 item 7. One changed byte in the object digests
// section: the structure checks out and every read succeeds (the digests
// are then ignored), but VerifyAll reports it, as bpx verify does.
func TestVerifyAll(t *testing.T) {
	m, _ := sourceTree(300)
	good := pkgBytes(t, m)
	if err := openBytes(t, good).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a good package: %v", err)
	}
	p := openBytes(t, good)
	ds := p.Reader.FindSection(SectionDigests)
	bad := bytes.Clone(good)
	bad[ds.Pointer+uint64(ds.StoredSize())-1] ^= 0x55
	p = openBytes(t, bad)
	if err := p.VerifyStructure(); err != nil {
		t.Fatalf("VerifyStructure: %v", err)
	}
	for i := range p.Objects() {
		if _, err := p.ReadObject(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.VerifyAll(); !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrFormat) {
		t.Fatalf("VerifyAll: %v", err)
	}

	// A signed package: the bytes between sections are checked too.
	k := testKey(t, 5, "k")
	signed := pkgBytes(t, m, WithSigningKey(k))
	if err := openBytes(t, signed, WithTrustedKeys(ring(k))).VerifyAll(); err != nil {
		t.Fatalf("VerifyAll of a signed package: %v", err)
	}
}

// TestVerifyAllAgreesWithCommand runs bpx verify on the same files, when
// the command can be built.
func TestVerifyAllAgreesWithCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/bpx")
	}
	bin := filepath.Join(t.TempDir(), "bpx")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/gobpx/bpx/cmd/bpx").CombinedOutput(); err != nil {
		t.Skipf("cannot build bpx: %v\n%s", err, out)
	}
	m, _ := sourceTree(300)
	good := pkgBytes(t, m)
	p := openBytes(t, good)
	ds := p.Reader.FindSection(SectionDigests)
	sec := busiestSection(p)
	s := p.Reader.Sections[sec]
	for name, b := range map[string][]byte{
		"good":    good,
		"digests": flipAt(good, ds.Pointer+uint64(ds.StoredSize())-1),
		"data":    flipAt(good, s.Pointer+uint64(s.StoredSize())/2),
	} {
		file := filepath.Join(t.TempDir(), name+".bpx")
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		lib := openBytes(t, b).VerifyAll()
		cmdErr := exec.Command(bin, "verify", "-q", file).Run()
		if (lib == nil) != (cmdErr == nil) {
			t.Errorf("%s: VerifyAll %v, bpx verify %v", name, lib, cmdErr)
		}
	}
}

func flipAt(b []byte, at uint64) []byte {
	b = bytes.Clone(b)
	b[at] ^= 0x55
	return b
}
