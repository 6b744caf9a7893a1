package pack

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// WithTrustedKeys makes Open and NewReader accept only a package signed by
// a key of trusted (see package sign): before anything else is read, the
// package's bytes are wrapped with sign.Open, which checks a signature by
// a trusted key over the manifest and the header and section table
// against it. An unsigned package fails with sign.ErrUnsigned, one signed
// by no trusted key with sign.ErrUntrusted, one whose header or tables do
// not match with sign.ErrTampered; all match bpx.ErrSignature. Every byte
// the Package reads afterwards (tables, metadata, objects, over a local
// file or remote.Open's io.ReaderAt) comes from chunks hashed and
// compared first: reading an object that holds a changed byte fails with
// an error matching sign.ErrTampered and bpx.ErrSignature, and no byte of
// the chunk that holds it is returned. Signers tells who signed. Since
// every byte is checked against its SHA-256 digest, the sections' own
// weak and CRC-32 checksums are not checked too (bpx.SkipChecksums):
// opening GOROOT/src's package costs the hashing of its 680 KB of tables
// instead of their weak checksums.
//
// A trusted ring made with KeyRing.Require also refuses a package whose
// signed statement does not name the required package or states an older
// version (sign.ErrRequirement), or has expired (sign.ErrExpired).
//
// New, given an already opened container, cannot verify it and fails
// with this option. trusted must not be nil.
func WithTrustedKeys(trusted *sign.KeyRing) Option {
	return func(c *config) error {
		if trusted == nil {
			return optionError("WithTrustedKeys", "nil", "nil key ring")
		}
		c.trusted = trusted
		return nil
	}
}

// Signers returns the trusted keys whose signatures of the package
// verified, as the KeyRing given to WithTrustedKeys names them, or nil
// when the package was opened without WithTrustedKeys (it may still be
// signed: sign.Inspect tells). With this method a *Package satisfies
// overlay.Signed, which overlay.RequireSigned asks of its layers.
func (p *Package) Signers() []sign.PublicKey { return slices.Clone(p.signers) }

// verifyOpen wraps r with sign.Open when cfg asks for trusted keys.
func verifyOpen(r io.ReaderAt, size int64, cfg config) (io.ReaderAt, []sign.PublicKey, error) {
	if cfg.trusted == nil {
		return r, nil, nil
	}
	v, err := sign.Open(r, size, cfg.trusted)
	if err != nil {
		return nil, nil, err // sign's errors say what failed
	}
	return v, v.Signers(), nil
}

// errNewTrusted is New's error when given WithTrustedKeys.
var errNewTrusted = fmt.Errorf("pack: New: WithTrustedKeys needs the package's bytes, not an opened container: use Open or NewReader: %w", bpx.ErrUnsupported)

// WithSigningKey makes Writer.Close and Editor.Close write a signed
// package (see package sign): signed by every key of keys, its last
// section a signature section that readers with WithTrustedKeys check and
// other BPX readers skip. The package is first written to a temporary
// file ("bpx-sign-*" in the WithTempDir directory, removed in every case)
// and then signed into the destination, which costs reading it back
// twice. One section of the section limit (WithMaxSections) is kept for
// the signature section, so that a signed package still keeps within
// it. At least one key is needed and none may be nil.
func WithSigningKey(keys ...*sign.PrivateKey) WriterOption {
	return func(c *writerConfig) error {
		if len(keys) == 0 {
			return optionError("WithSigningKey", "no key", "at least one key")
		}
		if slices.Contains(keys, nil) {
			return optionError("WithSigningKey", "nil", "nil key")
		}
		c.signKeys = append(c.signKeys, keys...)
		return nil
	}
}

// contentSections is the section limit left for the package's own
// sections: maxSections, but one for the signature section when signing;
// 0 when there is no limit.
func (c *writerConfig) contentSections() int {
	if c.maxSections > 0 && len(c.signKeys) > 0 {
		return c.maxSections - 1
	}
	return c.maxSections
}

// checkSigning checks the options together once they are all applied.
func (c *writerConfig) checkSigning() error {
	if len(c.signKeys) > 0 && c.maxSections > 0 && c.maxSections < 5 {
		return optionError("WithMaxSections", c.maxSections, "at least 5 with WithSigningKey (one is the signature section)")
	}
	return nil
}

// output returns where Close writes the package: the destination, or,
// when signing, a temporary file that finishOutput signs into it.
func (w *Writer) output() (io.Writer, error) {
	if len(w.cfg.signKeys) == 0 {
		return w.dst, nil
	}
	f, err := os.CreateTemp(w.cfg.tempDir, "bpx-sign-*")
	if err != nil {
		return nil, err
	}
	w.signTmp = f
	return f, nil
}

// finishOutput signs the package written to the temporary file of output
// into the destination; it does nothing when not signing.
func (w *Writer) finishOutput() error {
	f := w.signTmp
	if f == nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var dst io.Writer = w.dst
	var src io.ReaderAt = f
	if ctx := w.cfg.ctx; ctx != nil {
		dst = stopWriter{ctx, dst}
		src = stopReaderAt{ctx, src}
	}
	if err := sign.Sign(dst, src, fi.Size(), w.cfg.signKeys...); err != nil {
		return fmt.Errorf("pack: signing: %w", err)
	}
	return nil
}

// removeSignTemp removes the temporary file of output.
func (w *Writer) removeSignTemp() {
	if w.signTmp != nil {
		w.signTmp.Close()
		os.Remove(w.signTmp.Name())
		w.signTmp = nil
	}
}

// stopWriter fails its writes once ctx is done, with an error wrapping
// context.Cause(ctx); stopReaderAt does so for its reads.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s stopWriter) Write(p []byte) (int, error) {
	if err := stopped(s.ctx); err != nil {
		return 0, err
	}
	return s.w.Write(p)
}

type stopReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (s stopReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := stopped(s.ctx); err != nil {
		return 0, err
	}
	return s.r.ReadAt(p, off)
}

// stopped returns an error wrapping context.Cause(ctx) once ctx is done;
// it costs one channel poll.
func stopped(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("pack: stopped while signing: %w", context.Cause(ctx))
	default:
		return nil
	}
}

// isSigned reports whether the package has a signature section (valid or
// not).
func isSigned(rd *bpx.Reader) bool { return rd.FindSection(sign.SectionType) != nil }

// SignatureRemoved reports, after Close succeeded, whether the source
// package was signed and the edited one is not: an Editor never carries a
// signature over (it would not match the edited package), so an edit
// without WithSigningKey removes it. Programs tell their users so.
func (e *Editor) SignatureRemoved() bool { return e.signRemoved }
