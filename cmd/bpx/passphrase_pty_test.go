//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx/sign"
)

// ptyScript runs argv[2:] on a new pseudo-terminal and answers each
// prompt that contains "assphrase" with argv[1] and a newline, once the
// terminal no longer echoes (for at most 5 s); it prints
// everything the command wrote to the terminal and exits with its status.
const ptyScript = `
import os, pty, sys, termios, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
answered = 0  # the output up to here holds no unanswered prompt
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
    last = out[answered:].split(b"\n")[-1]
    if b"assphrase" in last and last.rstrip().endswith(b":"):
        answered = len(out)
        # Type once echo is off, as a person would, some time after the
        # prompt: bpx prints it before turning echo off.
        for _ in range(500):
            if not termios.tcgetattr(fd)[3] & termios.ECHO:
                break
            time.sleep(0.01)
        os.write(fd, sys.argv[1].encode() + b"\n")
sys.stdout.write(out.decode(errors="replace"))
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`

// runOnTerminal runs the bpx binary with args on a pseudo-terminal (with
// python3's pty module; the test skips without it), answering every
// passphrase prompt with pass.
func runOnTerminal(t *testing.T, pass string, args ...string) (string, int) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to run bpx on a pseudo-terminal")
	}
	cmd := exec.Command(py, append([]string{"-c", ptyScript, pass, bpxBinary(t)}, args...)...)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestPassphrasePrompt: on a terminal, keygen asks for a passphrase twice
// without echoing it and encrypts the key with it; sign asks for it.
func TestPassphrasePrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bpx binary")
	}
	f := newSignFixture(t)
	key := filepath.Join(f.dir, "tty")
	out, code := runOnTerminal(t, "s3cret-words", "keygen", "-o", key)
	if code != exitOK || !strings.Contains(out, "Passphrase for the new key") || !strings.Contains(out, "The same passphrase again") || strings.Contains(out, "s3cret-words") {
		t.Fatalf("keygen on a terminal: exit %d:\n%s", code, out)
	}
	secret, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.ParsePrivateKey(secret, []byte("s3cret-words")); err != nil {
		t.Fatalf("the key does not decrypt with the passphrase typed: %v", err)
	}
	signed := filepath.Join(f.dir, "tty.bpx")
	out, code = runOnTerminal(t, "s3cret-words", "sign", "--key", key, "-o", signed, f.plain)
	if code != exitOK || !strings.Contains(out, "Passphrase for "+key) || strings.Contains(out, "s3cret-words") {
		t.Fatalf("sign on a terminal: exit %d:\n%s", code, out)
	}
	out, code = runOnTerminal(t, "wrong", "sign", "--key", key, "-o", signed, f.plain)
	if code != exitFail || strings.Count(out, "Passphrase for") != 3 || !strings.Contains(out, "three tries") {
		t.Errorf("sign with a wrong passphrase typed: exit %d:\n%s", code, out)
	}
}
