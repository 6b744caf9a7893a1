package pull

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// check checks the complete LOCAL.part as "bpx verify" checks a file
// (with WithTrustedKeys, as "bpx verify --trusted" does, the key ring's
// requirements included): verifyFile.
func (p *puller) check() error {
	if err := verifyFile(p.out, p.size, p.cfg.trusted); err != nil {
		return fmt.Errorf("pull: the new file: %w", err)
	}
	return nil
}

// verifyFile checks the file r of size bytes as "bpx verify" does: a
// package as pack.Package.VerifyAll checks it (every section decoded and
// checked, block maps, object digests, chunk digests, the structure), any
// other BPX file section by section; with trusted, every byte against a
// signature by a trusted key that meets the ring's requirements. A chunk
// taken from a local file that the server's file does not hold fails
// here, short of a forged checksum.
func verifyFile(r io.ReaderAt, size int64, trusted *sign.KeyRing) error {
	br, err := bpx.NewReader(r, size)
	if err != nil {
		return err
	}
	if br.Header.Type == bpx.TypePackage && br.Header.Version != 0 {
		var opts []pack.Option
		if trusted != nil {
			opts = append(opts, pack.WithTrustedKeys(trusted))
		}
		pkg, err := pack.NewReader(r, size, opts...)
		if err != nil {
			return err
		}
		defer pkg.Close()
		return pkg.VerifyAll()
	}
	for _, s := range br.Sections {
		if err := s.Verify(); err != nil {
			return err
		}
	}
	if trusted != nil {
		v, err := sign.Open(r, size, trusted)
		if err != nil {
			return err
		}
		return v.VerifyAll()
	}
	return nil
}

// checkTrust checks, before anything but the head and what follows the
// chunk digests is fetched, that the served file is signed by a trusted
// key whose statement meets the ring's requirements (name, version,
// expiry): with WithTrustedKeys, a pull of an unsigned, untrusted or
// older package fails at once, whichever path it would take. The
// signature section is among the bytes fetched with the digests, or is
// fetched now (a package without chunk digests).
func (p *puller) checkTrust() error {
	if p.cfg.trusted == nil {
		return nil
	}
	if p.head == nil {
		return fmt.Errorf("pull: a draft BPX file is never signed: %w", bpx.ErrSignature)
	}
	known := &knownBytes{size: p.size}
	known.add(0, p.head)
	if p.dbytes != nil {
		known.add(p.dstart, p.dbytes)
	}
	for _, s := range p.secs {
		if s.Type != sign.SectionType || known.has(int64(s.Pointer), int64(s.CSize)) {
			continue
		}
		if s.CSize > sign.MaxSectionSize {
			break // sign.Open refuses it
		}
		b := make([]byte, s.CSize)
		if _, err := p.fetchAt(b, int64(s.Pointer)); err != nil {
			return fmt.Errorf("pull: reading the signature: %w", err)
		}
		p.res.Fetched += int64(len(b))
		p.res.Requests++
		known.add(int64(s.Pointer), b)
	}
	if _, err := sign.Open(known, p.size, p.cfg.trusted); err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	return nil
}

// checkUpToDate checks the local file, found to be the served one, as the
// new file would be: with WithTrustedKeys, every byte against its
// signature (checkTrust checked who signed it and what they state).
// Without, nothing more: the file is as the server serves it.
func (p *puller) checkUpToDate(f *os.File) error {
	if p.cfg.trusted == nil {
		return nil
	}
	v, err := sign.Open(f, p.size, p.cfg.trusted)
	if err == nil {
		err = v.VerifyAll()
	}
	if err != nil {
		return fmt.Errorf("pull: %s: %w", p.local, err)
	}
	return nil
}

// knownBytes is an io.ReaderAt of the bytes of a file fetched so far;
// reading any other byte is an error.
type knownBytes struct {
	size  int64
	spans []knownSpan
}

type knownSpan struct {
	off int64
	b   []byte
}

func (k *knownBytes) add(off int64, b []byte) { k.spans = append(k.spans, knownSpan{off, b}) }

func (k *knownBytes) has(off, n int64) bool {
	for _, s := range k.spans {
		if off >= s.off && off+n <= s.off+int64(len(s.b)) {
			return true
		}
	}
	return false
}

var errNotFetched = errors.New("pull: bytes not fetched yet")

func (k *knownBytes) ReadAt(b []byte, off int64) (int, error) {
	for _, s := range k.spans {
		if off >= s.off && off+int64(len(b)) <= s.off+int64(len(s.b)) {
			return copy(b, s.b[off-s.off:]), nil
		}
	}
	if off >= k.size {
		return 0, io.EOF
	}
	return 0, fmt.Errorf("%w: [%d, %d)", errNotFetched, off, off+int64(len(b)))
}
