package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gobpx/bpx"
	"golang.org/x/crypto/ssh"
)

// PublicKey is an Ed25519 public key, with the comment its line carried.
type PublicKey struct {
	key     ed25519.PublicKey
	Comment string // the comment of its authorized_keys line, or of the KeyRing entry
}

// ID returns the key's fingerprint as ssh-keygen -l prints it
// ("SHA256:" and 43 characters of unpadded base64).
func (k PublicKey) ID() string {
	pk, err := ssh.NewPublicKey(k.key)
	if err != nil {
		return "invalid key"
	}
	return ssh.FingerprintSHA256(pk)
}

// String returns the key as one authorized_keys line, without a newline:
// "ssh-ed25519 AAAA..." and the comment, if any.
func (k PublicKey) String() string {
	pk, err := ssh.NewPublicKey(k.key)
	if err != nil {
		return "invalid key"
	}
	line := strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(pk)), "\n")
	if k.Comment != "" {
		line += " " + k.Comment
	}
	return line
}

// Equal reports whether k and o are the same key (comments aside).
func (k PublicKey) Equal(o PublicKey) bool { return bytes.Equal(k.key, o.key) }

// ParsePublicKey parses one authorized_keys line: "ssh-ed25519", the key
// in base64 and an optional comment. A key of another type is an error
// naming it, matching bpx.ErrUnsupported; a malformed one matches
// bpx.ErrFormat.
func ParsePublicKey(line []byte) (PublicKey, error) {
	pk, comment, _, _, err := ssh.ParseAuthorizedKey(line)
	if err != nil {
		return PublicKey{}, fmt.Errorf("sign: public key: %v: %w", err, bpx.ErrFormat)
	}
	return fromSSH(pk, comment)
}

// fromSSH returns the Ed25519 key of pk.
func fromSSH(pk ssh.PublicKey, comment string) (PublicKey, error) {
	if pk.Type() != ssh.KeyAlgoED25519 {
		return PublicKey{}, fmt.Errorf("sign: a %s key: only ssh-ed25519 keys are supported: %w", pk.Type(), bpx.ErrUnsupported)
	}
	cpk, ok := pk.(ssh.CryptoPublicKey)
	if !ok {
		return PublicKey{}, fmt.Errorf("sign: public key: %w", bpx.ErrFormat)
	}
	ek, ok := cpk.CryptoPublicKey().(ed25519.PublicKey)
	if !ok || len(ek) != ed25519.PublicKeySize {
		return PublicKey{}, fmt.Errorf("sign: public key: not an Ed25519 key of %d bytes: %w", ed25519.PublicKeySize, bpx.ErrFormat)
	}
	return PublicKey{key: ek, Comment: comment}, nil
}

// PrivateKey is an Ed25519 secret key, the key that signs.
type PrivateKey struct {
	key ed25519.PrivateKey
	pub PublicKey
}

// GenerateKey returns a new key pair, drawing randomness from r
// (crypto/rand.Reader when r is nil); comment is stored with it.
func GenerateKey(r io.Reader, comment string) (*PrivateKey, error) {
	if r == nil {
		r = rand.Reader
	}
	pub, priv, err := ed25519.GenerateKey(r)
	if err != nil {
		return nil, err
	}
	return &PrivateKey{key: priv, pub: PublicKey{key: pub, Comment: comment}}, nil
}

// Public returns the public key of k.
func (k *PrivateKey) Public() PublicKey { return k.pub }

// MarshalOpenSSH returns k as an "OPENSSH PRIVATE KEY" PEM file, as
// ssh-keygen writes it: encrypted with passphrase (bcrypt KDF, AES-256)
// unless passphrase is empty.
func (k *PrivateKey) MarshalOpenSSH(passphrase []byte) ([]byte, error) {
	var block *pem.Block
	var err error
	if len(passphrase) == 0 {
		block, err = ssh.MarshalPrivateKey(k.key, k.pub.Comment)
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(k.key, k.pub.Comment, passphrase)
	}
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(block), nil
}

// ErrPassphrase is returned by ParsePrivateKey for an encrypted key when
// no passphrase, or a wrong one, is given.
var ErrPassphrase = errors.New("sign: the secret key is encrypted: a passphrase is needed, or it is wrong")

// ParsePrivateKey parses an OpenSSH secret key file (as MarshalOpenSSH
// and ssh-keygen -t ed25519 write it), decrypting it with passphrase when
// it is encrypted. An encrypted key without its passphrase is ErrPassphrase.
func ParsePrivateKey(data, passphrase []byte) (*PrivateKey, error) {
	var raw any
	var err error
	if len(passphrase) == 0 {
		raw, err = ssh.ParseRawPrivateKey(data)
	} else {
		raw, err = ssh.ParseRawPrivateKeyWithPassphrase(data, passphrase)
	}
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing), errors.Is(err, x509.IncorrectPasswordError):
		return nil, ErrPassphrase
	case err != nil:
		return nil, fmt.Errorf("sign: secret key: %v: %w", err, bpx.ErrFormat)
	}
	var priv ed25519.PrivateKey
	switch k := raw.(type) {
	case ed25519.PrivateKey:
		priv = k
	case *ed25519.PrivateKey:
		priv = *k
	default:
		return nil, fmt.Errorf("sign: a %T secret key: only Ed25519 keys are supported: %w", raw, bpx.ErrUnsupported)
	}
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("sign: secret key: %w", bpx.ErrFormat)
	}
	// The file's comment is not kept: x/crypto/ssh does not return it.
	return &PrivateKey{key: priv, pub: PublicKey{key: priv.Public().(ed25519.PublicKey)}}, nil
}
