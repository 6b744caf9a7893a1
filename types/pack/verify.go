package pack

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// maxVerifyErrors bounds how many object problems Verify reports.
const maxVerifyErrors = 20

// verifyMemo is what VerifySection reads once for all sections.
type verifyMemo struct {
	index  indexDigests
	chunks chunkMemo

	fullOnce sync.Once
	full     []int // see fullData
}

// fullData returns, for each section k, the first data section from k on
// that holds bytes, all those before it being empty data sections, or -1:
// where an object whose entry points at the very end of section k-1 has
// its first byte (see walkSegments).
func (p *Package) fullData() []int {
	m := &p.vmemo
	m.fullOnce.Do(func() {
		m.full = make([]int, len(p.Reader.Sections)+1)
		m.full[len(p.Reader.Sections)] = -1
		for k := len(p.Reader.Sections) - 1; k >= 0; k-- {
			switch {
			case p.Reader.Sections[k].Type != p.dataTyp:
				m.full[k] = -1
			case p.secSize[k] > 0:
				m.full[k] = k
			default:
				m.full[k] = m.full[k+1]
			}
		}
	})
	return m.full
}

// Verify checks the package's structure, as VerifyStructure does.
//
// Deprecated: Verify reads no object data, which its name does not say:
// use VerifyStructure for the structure alone, VerifyAll for every check
// "bpx verify" makes.
func (p *Package) Verify() error { return p.VerifyStructure() }

// VerifyAll checks the whole package, as "bpx verify" does: every section
// decoded and checked against its size and checksum, its block map, the
// digest of every object that can be read on its own and the chunk digests
// of its stored bytes (VerifySection), the stream digests of large stored
// objects (those that span sections read once more), the structure (VerifyStructure)
// and, for a package opened WithTrustedKeys, every byte of the file
// against the signature, the bytes between sections too. It reports up to
// 20 problems joined with errors.Join; nil means a reader can read every
// object. It reads (and decompresses) the whole file once, keeping no
// section: memory stays within what reading one section needs; chunk
// digests have each section's stored bytes read again right after its
// decoding, from the system's (or package remote's) cache. A problem of a
// data section is a *SectionError naming the files in it; a problem that
// several sections share (a damaged object table, which every data
// section's check reads) is reported once.
func (p *Package) VerifyAll() error { return p.VerifyAllContext(context.Background(), nil) }

// VerifyAllContext is VerifyAll stopping with ctx's error once ctx is done
// (checked before each section: a section begun is checked to its end)
// and calling progress, if not nil, after each section with the stored
// bytes of the sections checked so far and of all of them, for a
// progress bar.
func (p *Package) VerifyAllContext(ctx context.Context, progress func(done, total int64)) error {
	if err := p.load(); err != nil {
		return err
	}
	var total, done int64
	for _, s := range p.Reader.Sections {
		total += int64(s.StoredSize())
	}
	var errs []error
	seen := map[string]bool{}
	for _, s := range p.Reader.Sections {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.VerifySection(s.Index); err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			if errs = append(errs, err); len(errs) == maxVerifyErrors {
				return errors.Join(errs...)
			}
		}
		if done += int64(s.StoredSize()); progress != nil {
			progress(done, total)
		}
	}
	if err := p.verifySpanningChunks(ctx); err != nil && !seen[err.Error()] {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := p.VerifyStructure(); err != nil {
		return err
	}
	if p.verified != nil {
		return p.verified.VerifyGaps(p.Reader)
	}
	return nil
}

// VerifyStructure checks the package's structure without reading object data: every
// object's name can be read, its Start, Offset and Size lie inside a run of
// data sections (*ObjectError matching ErrObjectRange and bpx.ErrFormat),
// its name is a valid, unique fs path (*ObjectError matching
// ErrInsecurePath), and the metadata, if any, decodes. It reports up to 20
// problems joined with errors.Join. Section checksums and compressed streams
// are not read: verify those at the container level (every section's
// Section.Open to EOF).
func (p *Package) VerifyStructure() error {
	if err := p.load(); err != nil {
		return err
	}
	var errs []error
	add := func(err error) bool {
		errs = append(errs, err)
		return len(errs) < maxVerifyErrors
	}
	for i := range p.objects {
		o := &p.objects[i]
		if o.NameErr != nil {
			if !add(p.objectError(o, "bad name: "+o.NameErr.Error(), o.NameErr)) {
				break
			}
			continue
		}
		if _, err := p.segments(o); err != nil && !add(err) {
			break
		}
	}
	if len(errs) < maxVerifyErrors {
		bad := p.index().bad
		idx := make([]int, 0, len(bad))
		for i := range bad {
			if p.objects[i].NameErr == nil {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		for _, i := range idx {
			if !add(p.objectError(&p.objects[i], fmt.Sprintf("name refused for extraction: %s", bad[i]), ErrInsecurePath)) {
				break
			}
		}
	}
	if _, err := p.Metadata(); err != nil {
		errs = append(errs, fmt.Errorf("pack: metadata: %w", err))
	}
	if err := p.checkPathIndex(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
