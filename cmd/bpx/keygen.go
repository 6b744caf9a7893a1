package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
)

// keygenFlags are the flags of "bpx keygen".
type keygenFlags struct {
	out, comment, passFile string
}

func setupKeygen(fs *flag.FlagSet) func(*env, []string) int {
	var f keygenFlags
	fs.StringVar(&f.out, "o", "", "write the secret key to `NAME` and the public key to NAME.pub")
	fs.StringVar(&f.comment, "C", "", "the `COMMENT` of the public key, which names it in trusted-keys files (your name or your mod's, say)")
	definePassphraseFile(fs, &f.passFile, "encrypt the secret key with the first line of `FILE` (empty: not encrypted; default $"+passphraseEnv+", else asked for when standard input is a terminal)")
	return f.run
}

func (f *keygenFlags) run(e *env, pos []string) int {
	if len(pos) != 0 || f.out == "" {
		return e.usageError("want -o NAME and no arguments")
	}
	pubName := f.out + ".pub"
	for _, name := range []string{f.out, pubName} {
		if _, err := os.Lstat(name); err == nil {
			return e.fail(fmt.Errorf("%s exists: bpx keygen never overwrites a key; choose another NAME or remove it", name))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return e.fail(err)
		}
	}
	pass, err := f.passphrase(e)
	if err != nil {
		return e.fail(err)
	}
	k, err := sign.GenerateKey(nil, f.comment)
	if err != nil {
		return e.fail(err)
	}
	secret, err := k.MarshalOpenSSH(pass)
	if err != nil {
		return e.fail(err)
	}
	if err := writeNew(f.out, secret, 0o600); err != nil {
		return e.fail(err)
	}
	if err := writeNew(pubName, []byte(k.Public().String()+"\n"), 0o644); err != nil {
		os.Remove(f.out)
		return e.fail(err)
	}
	state := "not encrypted"
	if len(pass) > 0 {
		state = "encrypted"
	}
	w := termsafe.NewWriter(e.Stdout)
	fmt.Fprintf(w, "secret key: %s (%s; keep it to yourself: it signs as you)\n", termsafe.Name(f.out), state)
	fmt.Fprintf(w, "public key: %s (publish it: players add its line to their trusted keys)\n", termsafe.Name(pubName))
	fmt.Fprintf(w, "key ID:     %s\n", keyName(k.Public()))
	return exitOK
}

// passphrase returns the passphrase to encrypt the new key with: that of
// --passphrase-file or $BPX_PASSPHRASE, else one typed twice when
// standard input is a terminal, else none.
func (f *keygenFlags) passphrase(e *env) ([]byte, error) {
	pass, given, err := givenPassphrase(f.passFile)
	if err != nil || given {
		return pass, err
	}
	fd, ok := terminalStdin(e)
	if !ok {
		return nil, nil
	}
	pass, err = readPassword(e, fd, "Passphrase for the new key (empty for none): ")
	if err != nil {
		return nil, err
	}
	again, err := readPassword(e, fd, "The same passphrase again: ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(pass, again) {
		return nil, errors.New("the passphrases differ: nothing was written")
	}
	return pass, nil
}

// writeNew creates the file name, which must not exist, with data and the
// permission bits perm (umask aside), and removes it if writing fails.
func writeNew(name string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
