package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
	"golang.org/x/term"
)

// passphraseEnv names the environment variable that holds the passphrase
// of an encrypted secret key, for scripts and CI.
const passphraseEnv = "BPX_PASSPHRASE"

// maxKeyFile bounds a secret key or passphrase file: an OpenSSH Ed25519
// key is about 400 bytes, an encrypted one 460.
const maxKeyFile = 64 << 10

// keyFlags are the flags of the commands that sign: --key and
// --passphrase-file.
type keyFlags struct {
	key, passFile string
}

// define defines --key (what it does: the usage) and --passphrase-file.
func (f *keyFlags) define(fs *flag.FlagSet, usage string) {
	fs.StringVar(&f.key, "key", "", usage)
	definePassphraseFile(fs, &f.passFile, "the passphrase of an encrypted --key: the first line of `FILE` (else $"+passphraseEnv+", else a prompt when standard input is a terminal)")
}

// definePassphraseFile defines --passphrase-file.
func definePassphraseFile(fs *flag.FlagSet, name *string, usage string) {
	fs.StringVar(name, "passphrase-file", "", usage)
}

// signer is a secret key that signs, with the name messages give it.
type signer struct {
	keys []*sign.PrivateKey // one key, or none without --key
	name string             // its ID and the comment of its .pub file
}

// signer loads the key --key names; without --key it has none.
func (f *keyFlags) signer(e *env) (signer, error) {
	if f.key == "" {
		if f.passFile != "" {
			return signer{}, fmt.Errorf("%w: --passphrase-file without --key", errUsage)
		}
		return signer{}, nil
	}
	k, err := loadSecretKey(e, f.key, f.passFile)
	if err != nil {
		return signer{}, err
	}
	pub := k.Public()
	pub.Comment = pubComment(k, f.key)
	return signer{[]*sign.PrivateKey{k}, keyName(pub)}, nil
}

// loadSecretKey reads the OpenSSH secret key file name (as bpx keygen or
// ssh-keygen -t ed25519 write it), which others must not be able to read
// or write (checkKeyMode). An encrypted key is decrypted with the
// passphrase of passFile, else of $BPX_PASSPHRASE, else one asked for on
// the terminal (three tries) when standard input is one; else it is an
// error saying how to give it.
func loadSecretKey(e *env, name, passFile string) (*sign.PrivateKey, error) {
	data, err := readSmallFile(name)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("ssh-")) {
		return nil, fmt.Errorf("%s is a public key: sign with the secret key (the file without .pub): %w", name, bpx.ErrFormat)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkKeyMode(name, fi); err != nil {
		return nil, err
	}
	k, err := sign.ParsePrivateKey(data, nil)
	if errors.Is(err, sign.ErrPassphrase) {
		k, err = decryptKey(e, name, data, passFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return k, nil
}

// decryptKey decrypts the encrypted key data of the file name.
func decryptKey(e *env, name string, data []byte, passFile string) (*sign.PrivateKey, error) {
	pass, given, err := givenPassphrase(passFile)
	if err != nil {
		return nil, err
	}
	if given {
		k, err := sign.ParsePrivateKey(data, pass)
		if errors.Is(err, sign.ErrPassphrase) {
			return nil, errors.New("the passphrase is wrong")
		}
		return k, err
	}
	fd, ok := terminalStdin(e)
	if !ok {
		return nil, fmt.Errorf("the key is encrypted: give its passphrase with --passphrase-file FILE or $%s (standard input is no terminal to ask on)", passphraseEnv)
	}
	for try := 0; try < 3; try++ {
		pass, err := readPassword(e, fd, "Passphrase for "+name+": ")
		if err != nil {
			return nil, err
		}
		k, err := sign.ParsePrivateKey(data, pass)
		if !errors.Is(err, sign.ErrPassphrase) {
			return k, err
		}
		fmt.Fprintln(e.Stderr, "Wrong passphrase.")
	}
	return nil, errors.New("the passphrase is wrong (three tries)")
}

// givenPassphrase returns the passphrase passFile or $BPX_PASSPHRASE
// gives, and whether either gives one: the first line of passFile (an
// empty one too), else the variable when it is set.
func givenPassphrase(passFile string) ([]byte, bool, error) {
	if passFile != "" {
		data, err := readSmallFile(passFile)
		if err != nil {
			return nil, false, err
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		return bytes.TrimSuffix(line, []byte("\r")), true, nil
	}
	if v, ok := os.LookupEnv(passphraseEnv); ok {
		return []byte(v), true, nil
	}
	return nil, false, nil
}

// terminalStdin returns the descriptor of standard input when it is a
// terminal, which a passphrase may be asked on.
func terminalStdin(e *env) (int, bool) {
	f, ok := e.Stdin.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// readPassword prints prompt on standard error and reads a line from the
// terminal fd without echoing it.
func readPassword(e *env, fd int, prompt string) ([]byte, error) {
	fmt.Fprint(e.Stderr, prompt)
	pass, err := term.ReadPassword(fd)
	fmt.Fprintln(e.Stderr)
	if err != nil {
		return nil, fmt.Errorf("reading the passphrase: %w", err)
	}
	return pass, nil
}

// pubComment returns the comment of the public key file name.pub when
// that file holds k's public key, else "": the secret key file's own
// comment is not read (see sign.ParsePrivateKey).
func pubComment(k *sign.PrivateKey, name string) string {
	data, err := readSmallFile(name + ".pub")
	if err != nil {
		return ""
	}
	pub, err := sign.ParsePublicKey(data)
	if err != nil || !pub.Equal(k.Public()) {
		return ""
	}
	return pub.Comment
}

// readSmallFile reads the file name, at most maxKeyFile bytes.
func readSmallFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("%s: more than %d bytes: not a key: %w", name, maxKeyFile, bpx.ErrTooLarge)
	}
	return data, nil
}

// trustedFlag is --trusted: the file of the public keys a command
// trusts, and --name and --min-version: what the package must state.
type trustedFlag struct {
	name       string
	pkgName    string
	minVersion uint64
}

// define defines --trusted, --name and --min-version; what says what the
// keys must have signed.
func (t *trustedFlag) define(fs *flag.FlagSet, what string) {
	fs.StringVar(&t.name, "trusted", "", "refuse "+what+" unless signed by a key of the trusted-keys `FILE` and every byte read matches (one public key a line, as .pub files and ssh's allowed_signers hold them)")
	fs.StringVar(&t.pkgName, "name", "", "with --trusted: refuse a package whose signers do not state the name `NAME` (bpx sign --name), or whose key's allowed_signers principals do not match it, as ssh-keygen -Y verify -I NAME")
	fs.Uint64Var(&t.minVersion, "min-version", 0, "with --trusted: refuse a package whose signers state a version below `N` (bpx sign --version): an older release")
}

// ring loads the trusted keys, requiring --name and --min-version, or
// returns nil without --trusted.
func (t *trustedFlag) ring() (*sign.KeyRing, error) {
	if t.name == "" {
		if t.pkgName != "" || t.minVersion != 0 {
			return nil, fmt.Errorf("%w: --name and --min-version need --trusted", errUsage)
		}
		return nil, nil
	}
	r, err := sign.LoadKeyRing(t.name)
	if err != nil {
		return nil, err
	}
	return r.Require(sign.Requirement{Name: t.pkgName, MinVersion: t.minVersion}), nil
}

// keyName is how messages name the key k: its ID and its comment, made
// safe for a terminal (comments come from files).
func keyName(k sign.PublicKey) string {
	if k.Comment == "" {
		return k.ID()
	}
	return k.ID() + " (" + termsafe.Message(k.Comment) + ")"
}

// signerNames names the keys ks, comma-separated (see keyName).
func signerNames(ks []sign.PublicKey) string {
	var names []string
	for _, k := range ks {
		names = append(names, keyName(k))
	}
	return strings.Join(names, ", ")
}
