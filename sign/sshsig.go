package sign

import (
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/gobpx/bpx"
	"golang.org/x/crypto/ssh"
)

// Namespace is the SSHSIG namespace of BPX signatures: ssh-keygen -Y
// verify -n bpx verifies them.
const Namespace = "bpx"

// maxSignatureBlob bounds one SSHSIG blob (an Ed25519 one is 115 bytes
// plus the namespace).
const maxSignatureBlob = 4096

// sshsig is the SSHSIG blob (PROTOCOL.sshsig) without its magic.
type sshsig struct {
	Version   uint32
	PublicKey []byte
	Namespace string
	Reserved  string
	HashAlg   string
	Signature []byte
}

// signedData is what an SSHSIG signature signs: the magic, then the
// namespace, reserved and hash algorithm fields and the message's hash.
type signedData struct {
	Namespace string
	Reserved  string
	HashAlg   string
	Hash      []byte
}

const sshsigMagic = "SSHSIG"

// messageToSign returns what an SSHSIG signature of a message whose
// SHA-512 is h signs.
func messageToSign(h *[sha512.Size]byte) []byte {
	return append([]byte(sshsigMagic), ssh.Marshal(signedData{Namespace: Namespace, HashAlg: "sha512", Hash: h[:]})...)
}

// SignMessage returns the SSHSIG signature blob of msg by k, namespace
// Namespace, hash sha512: what ssh-keygen -Y sign -n bpx writes, unarmored.
func (k *PrivateKey) SignMessage(msg []byte) ([]byte, error) {
	signer, err := ssh.NewSignerFromKey(k.key)
	if err != nil {
		return nil, err
	}
	h := sha512.Sum512(msg)
	sig, err := signer.Sign(nil, messageToSign(&h))
	if err != nil {
		return nil, err
	}
	blob := sshsig{Version: 1, PublicKey: signer.PublicKey().Marshal(), Namespace: Namespace, HashAlg: "sha512", Signature: ssh.Marshal(sig)}
	return append([]byte(sshsigMagic), ssh.Marshal(blob)...), nil
}

// VerifyMessage checks the SSHSIG blob sig over msg and returns the key
// that made it (the key the blob names, which the caller must still look
// up among the keys it trusts). A malformed blob, another namespace, hash
// or key type, or a signature that does not verify is an error matching
// bpx.ErrSignature.
func VerifyMessage(sig, msg []byte) (PublicKey, error) {
	h := sha512.Sum512(msg)
	return verifyHashed(sig, &h)
}

// verifyHashed is VerifyMessage of a message whose SHA-512 is h: a file's
// signatures are checked with one hash of its manifest.
func verifyHashed(sig []byte, h *[sha512.Size]byte) (PublicKey, error) {
	blob, pk, pub, err := parseSSHSIG(sig)
	if err != nil {
		return PublicKey{}, err
	}
	if blob.Reserved != "" {
		// Not signed: a blob that differs in it only would verify too.
		return PublicKey{}, badSignature(fmt.Sprintf("reserved field of %d bytes, not empty", len(blob.Reserved)))
	}
	var s ssh.Signature
	if err := ssh.Unmarshal(blob.Signature, &s); err != nil {
		return PublicKey{}, badSignature(err.Error())
	}
	if s.Format != ssh.KeyAlgoED25519 {
		return PublicKey{}, badSignature(fmt.Sprintf("a %s signature", s.Format))
	}
	if len(s.Rest) != 0 {
		// ssh.Unmarshal keeps them; ssh-keygen refuses them.
		return PublicKey{}, badSignature(fmt.Sprintf("%d bytes after the signature", len(s.Rest)))
	}
	if err := pk.Verify(messageToSign(h), &s); err != nil {
		return PublicKey{}, badSignature("does not verify")
	}
	return pub, nil
}

// badSignature returns the error of a malformed or failed SSHSIG blob.
func badSignature(what string) error {
	return fmt.Errorf("sign: SSHSIG signature: %s: %w", what, bpx.ErrSignature)
}

// parseSSHSIG decodes the SSHSIG blob sig and its Ed25519 key, without
// verifying the signature.
func parseSSHSIG(sig []byte) (sshsig, ssh.PublicKey, PublicKey, error) {
	var blob sshsig
	fail := func(err error) (sshsig, ssh.PublicKey, PublicKey, error) {
		return blob, nil, PublicKey{}, err
	}
	if len(sig) > maxSignatureBlob {
		return fail(badSignature("too long"))
	}
	rest, ok := strings.CutPrefix(string(sig), sshsigMagic)
	if !ok {
		return fail(badSignature("no SSHSIG magic"))
	}
	if err := ssh.Unmarshal([]byte(rest), &blob); err != nil {
		return fail(badSignature(err.Error()))
	}
	if blob.Version != 1 {
		return fail(badSignature(fmt.Sprintf("version %d", blob.Version)))
	}
	if blob.Namespace != Namespace {
		return fail(badSignature(fmt.Sprintf("namespace %q, not %q", blob.Namespace, Namespace)))
	}
	if blob.HashAlg != "sha512" {
		return fail(badSignature(fmt.Sprintf("hash %q", blob.HashAlg)))
	}
	pk, err := ssh.ParsePublicKey(blob.PublicKey)
	if err != nil {
		return fail(badSignature(err.Error()))
	}
	pub, err := fromSSH(pk, "")
	if err != nil {
		return fail(fmt.Errorf("%w: %w", err, bpx.ErrSignature))
	}
	return blob, pk, pub, nil
}

// ArmorSignature returns the SSHSIG blob sig armored as ssh-keygen -Y
// sign writes it ("-----BEGIN SSH SIGNATURE-----"), for ssh-keygen -Y
// verify -n bpx.
func ArmorSignature(sig []byte) []byte {
	b64 := base64.StdEncoding.EncodeToString(sig)
	var sb strings.Builder
	sb.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(b64) > 70 {
		sb.WriteString(b64[:70] + "\n")
		b64 = b64[70:]
	}
	sb.WriteString(b64 + "\n-----END SSH SIGNATURE-----\n")
	return []byte(sb.String())
}
