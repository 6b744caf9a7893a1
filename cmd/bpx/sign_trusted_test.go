package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// TestPackKey: bpx pack --key writes a package that verifies, signed by
// the key.
func TestPackKey(t *testing.T) {
	f := newSignFixture(t)
	packed := filepath.Join(f.dir, "packed.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "--key", f.key, "-o", packed, f.src); r.Code != exitOK || r.Stdout != "" {
		t.Fatalf("pack --key: %+v", r)
	}
	checkSignedPackage(t, f, packed, pubKey(t, f.key+".pub").ID())
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, tamper(t, packed, ".tampered")); r.Code != exitFail {
		t.Errorf("verify --trusted of the tampered package: %+v", r)
	}
}

// TestCatTrustedURL: cat --trusted of a URL returns the object of a
// signed package and nothing of a tampered one.
func TestCatTrustedURL(t *testing.T) {
	f := newSignFixture(t)
	www := filepath.Join(f.dir, "www")
	os.Mkdir(www, 0o755)
	good := f.signed(t, "www/good.bpx", f.key)
	tamper(t, good, ".tampered")
	srv := httptest.NewServer(http.FileServer(http.Dir(www)))
	defer srv.Close()
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, srv.URL+"/good.bpx", "a.txt"); r.Code != exitOK || r.Stdout != marker {
		t.Errorf("cat --trusted of a URL: %+v", r)
	}
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, srv.URL+"/good.bpx.tampered", "a.txt"); r.Code != exitFail || r.Stdout != "" || !strings.Contains(r.Stderr, "does not match") {
		t.Errorf("cat --trusted of a tampered URL: %+v", r)
	}
}

// TestSignedReadsTrusted: cat, ls and unpack with --trusted read a package
// signed by a trusted key, and refuse a tampered or unsigned one (no byte
// of the tampered object on stdout, no file unpacked); cat -s too.
func TestSignedReadsTrusted(t *testing.T) {
	f := newSignFixture(t)
	good := f.signed(t, "good.bpx", f.key)
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, good, "a.txt"); r.Code != exitOK || r.Stdout != marker {
		t.Errorf("cat --trusted: %+v", r)
	}
	if r := runBPX(t, nil, "ls", "--trusted", f.trusted, good); r.Code != exitOK || r.Stdout != "a.txt\ndir/b.txt\n" {
		t.Errorf("ls --trusted: %+v", r)
	}
	data := dataSection(t, good)
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, "-s", data, good); r.Code != exitOK || !strings.Contains(r.Stdout, marker) {
		t.Errorf("cat -s %s --trusted: exit %d, %s", data, r.Code, r.Stderr)
	}
	out := filepath.Join(f.dir, "out")
	if r := runBPX(t, nil, "unpack", "-q", "--trusted", f.trusted, "-C", out, good); r.Code != exitOK {
		t.Errorf("unpack --trusted: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "a.txt")); string(got) != marker {
		t.Errorf("unpacked a.txt = %q", got)
	}

	tampered := tamper(t, good, ".tampered")
	for what, pkg := range map[string]string{"tampered": tampered, "unsigned": f.plain} {
		for _, args := range [][]string{
			{"cat", "--trusted", f.trusted, pkg, "a.txt"},
			{"cat", "--trusted", f.trusted, "-s", data, pkg},
			{"unpack", "-q", "--trusted", f.trusted, "-C", filepath.Join(f.dir, "out-"+what), pkg},
		} {
			r := runBPX(t, nil, args...)
			if r.Code != exitFail || strings.Contains(r.Stdout, marker[:5]) {
				t.Errorf("%s package: %v: %+v", what, args[:len(args)-1], r)
			}
			checkOneLineError(t, r)
		}
		if got, err := os.ReadFile(filepath.Join(f.dir, "out-"+what, "a.txt")); err == nil {
			t.Errorf("unpack --trusted of the %s package wrote a.txt: %q", what, got)
		}
	}
	// ls reads the tables only: it refuses the unsigned package; the
	// tampered one's tables match its signature.
	if r := runBPX(t, nil, "ls", "--trusted", f.trusted, f.plain); r.Code != exitFail || r.Stdout != "" {
		t.Errorf("ls --trusted of the unsigned package: %+v", r)
	}
}

// TestLayersTrusted: with --trusted, -L refuses a stack unless the base
// and every mod are signed by trusted keys.
func TestLayersTrusted(t *testing.T) {
	f := newSignFixture(t)
	base := f.signed(t, "base.bpx", f.key)
	modSrc := filepath.Join(f.dir, "modsrc")
	writeFiles(t, modSrc, map[string]string{"a.txt": "modded"})
	mod, signedMod := filepath.Join(f.dir, "mod.bpx"), filepath.Join(f.dir, "signed-mod.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", mod, modSrc); r.Code != exitOK {
		t.Fatal(r)
	}
	if r := runBPX(t, nil, "pack", "-q", "--key", f.key, "-o", signedMod, modSrc); r.Code != exitOK {
		t.Fatal(r)
	}
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, "-L", signedMod, base, "a.txt"); r.Code != exitOK || r.Stdout != "modded" {
		t.Errorf("cat -L --trusted of signed layers: %+v", r)
	}
	for _, args := range [][]string{
		{"cat", "--trusted", f.trusted, "-L", mod, base, "a.txt"},
		{"ls", "--trusted", f.trusted, "-L", mod, base},
		{"unpack", "-q", "--trusted", f.trusted, "-C", filepath.Join(f.dir, "out"), "-L", mod, base},
		{"cat", "--trusted", f.trusted, "-L", signedMod, f.plain, "a.txt"},
	} {
		r := runBPX(t, nil, args...)
		if r.Code != exitFail || r.Stdout != "" || !strings.Contains(r.Stderr, "not signed") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	if r := runBPX(t, nil, "ls", "-L", mod, base); r.Code != exitOK {
		t.Errorf("ls -L without --trusted: %+v", r)
	}
}

// TestEditSigned: an edit of a signed package without --key removes the
// signature and says so on stderr (the result is unsigned); with --key it
// re-signs, and the result verifies.
func TestEditSigned(t *testing.T) {
	f := newSignFixture(t)
	extra := filepath.Join(f.dir, "extra")
	writeFiles(t, extra, map[string]string{"new.txt": "new"})
	for _, edit := range [][]string{
		{"add", "-C", extra, "PKG", "new.txt"},
		{"rm", "PKG", "dir"},
		{"mv", "PKG", "a.txt", "c.txt"},
		{"repack", "--all", "PKG"},
	} {
		pkg := f.signed(t, edit[0]+".bpx", f.key)
		args := append([]string(nil), edit...)
		for i, a := range args {
			if a == "PKG" {
				args[i] = pkg
			}
		}
		r := runBPX(t, nil, args...)
		if r.Code != exitOK || !strings.Contains(r.Stderr, "signature") || !strings.Contains(r.Stderr, "bpx sign --key") {
			t.Errorf("%s of a signed package: %+v", edit[0], r)
		}
		if r := runBPX(t, nil, "verify", "--trusted", f.trusted, pkg); r.Code != exitFail || !strings.Contains(r.Stderr, "not signed") {
			t.Errorf("after %s without --key: %+v", edit[0], r)
		}
		signedArgs := append([]string{args[0], "--key", f.key}, args[1:]...)
		pkg2 := f.signed(t, edit[0]+"-2.bpx", f.key)
		for i, a := range signedArgs {
			if a == pkg {
				signedArgs[i] = pkg2
			}
		}
		if r := runBPX(t, nil, signedArgs...); r.Code != exitOK || strings.Contains(r.Stderr, "signature") {
			t.Errorf("%s --key: %+v", edit[0], r)
		}
		if r := runBPX(t, nil, "verify", "--trusted", f.trusted, pkg2); r.Code != exitOK {
			t.Errorf("after %s --key: %+v", edit[0], r)
		}
	}
	// An unsigned package edited gets no note.
	plain := filepath.Join(f.dir, "plain-edit.bpx")
	copyFile(t, f.plain, plain)
	if r := runBPX(t, nil, "rm", plain, "dir"); r.Code != exitOK || r.Stderr != "" {
		t.Errorf("rm of an unsigned package: %+v", r)
	}
	// diff --patch --key signs the patch.
	patch := filepath.Join(f.dir, "patch.bpx")
	if r := runBPX(t, nil, "diff", "--key", f.key, "--patch", patch, f.plain, extra); r.Code != exitFail {
		t.Errorf("diff --patch --key: %+v", r)
	}
	if r := runBPX(t, nil, "verify", "--trusted", f.trusted, patch); r.Code != exitOK {
		t.Errorf("verify of the signed patch: %+v", r)
	}
}

// dataSection returns the index of the first data section of the package
// name, for cat -s.
func dataSection(t *testing.T, name string) string {
	t.Helper()
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	s := rc.FindSection(pack.SectionData)
	if s == nil {
		t.Fatalf("%s has no data section", name)
	}
	return strconv.Itoa(s.Index)
}

// TestTrustedNameAndVersion: bpx sign --name --version states them; bpx
// verify, cat and ls with --trusted --name --min-version accept the
// release, and refuse another name or an older version; -L mods are not
// held to the base's name.
func TestTrustedNameAndVersion(t *testing.T) {
	f := newSignFixture(t)
	base := filepath.Join(f.dir, "base.bpx")
	if r := runBPX(t, nil, "sign", "--key", f.key, "--name", "base", "--version", "8", "-o", base, f.plain); r.Code != exitOK || !strings.Contains(r.Stdout, `"base" version 8`) {
		t.Fatalf("sign --name base --version 8: %+v", r)
	}
	mod := filepath.Join(f.dir, "mod.bpx")
	if r := runBPX(t, nil, "sign", "--key", f.key, "--name", "mod", "-o", mod, f.plain); r.Code != exitOK {
		t.Fatalf("sign --name mod: %+v", r)
	}
	if r := runBPX(t, nil, "verify", "-q", "--trusted", f.trusted, "--name", "base", "--min-version", "8", base); r.Code != exitOK || !strings.Contains(r.Stdout, `stating "base" version 8`) {
		t.Errorf("verify of release 8: %+v", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "-q", "--trusted", f.trusted, "--name", "base", "--min-version", "9", base}, "at least 9"},
		{[]string{"verify", "-q", "--trusted", f.trusted, "--name", "base", mod}, `signed as "mod"`},
		{[]string{"cat", "--trusted", f.trusted, "--name", "base", mod, "a.txt"}, `signed as "mod"`},
		{[]string{"ls", "--trusted", f.trusted, "--min-version", "9", base}, "at least 9"},
		{[]string{"verify", "--name", "base", base}, "need --trusted"},
	} {
		if r := runBPX(t, nil, c.args...); r.Code == exitOK || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("%v: %+v, want a failure saying %q", c.args, r, c.want)
		}
	}
	if r := runBPX(t, nil, "cat", "--trusted", f.trusted, "--name", "base", "-L", mod, base, "a.txt"); r.Code != exitOK || r.Stdout != marker {
		t.Errorf("cat --name base -L mod: %+v", r)
	}
}
