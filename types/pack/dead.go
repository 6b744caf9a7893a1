package pack

import (
	"fmt"

	"github.com/gobpx/bpx"
)

// checkSpans locates the data of every object and fails on the first that
// lies outside the data sections (unless loose), or with bpx.ErrTooLarge when the objects
// together span more than maxSpans: objects that overlap over many
// sections (which no writer makes) would otherwise cost objects × sections
// of time and memory in the Editor, DeadBytes and Diff.
// With loose, objects outside the data sections pass (as using nothing).
func (p *Package) checkSpans(loose bool) error {
	limit := maxSpans(len(p.objects), len(p.Reader.Sections))
	total := 0
	for i := range p.objects {
		segs, err := p.segments(&p.objects[i])
		if err != nil && !loose {
			return err
		}
		if total += len(segs); total > limit {
			return fmt.Errorf("pack: objects span more than %d sections in all (%d objects, %d sections): %w", limit, len(p.objects), len(p.Reader.Sections), bpx.ErrTooLarge)
		}
	}
	return nil
}

// maxSpans bounds the section spans of all objects together: a package
// whose objects do not overlap has at most objects + sections.
func maxSpans(objects, sections int) int { return 4*(objects+sections) + 1024 }

// DeadBytes returns how many uncompressed bytes of the data sections no
// object uses: what replacing and removing objects with an Editor leaves
// behind until the package is compacted. It reads only the object table;
// objects whose data lies outside the data sections are not counted as
// using anything. Bytes that several objects share count once; a package
// whose objects overlap over very many sections is an error matching
// bpx.ErrTooLarge.
func (p *Package) DeadBytes() (uint64, error) {
	if err := p.load(); err != nil {
		return 0, err
	}
	var data, used uint64
	for i, s := range p.Reader.Sections {
		if s.Type == p.dataTyp {
			data += p.secSize[i]
		}
	}
	if p.Revision != 2 {
		return 0, nil // inline headers (revision 1) and the draft are not table-placed
	}
	if err := p.checkSpans(true); err != nil {
		return 0, err
	}
	for _, u := range p.sectionUse() {
		used += u
	}
	return data - min(used, data), nil
}

// sectionUse returns, for every section of the container, how many of its
// uncompressed bytes the objects use, bytes shared by several objects
// counted once.
func (p *Package) sectionUse() []uint64 {
	live := make([]squeeze, len(p.Reader.Sections))
	for i := range p.objects {
		segs, err := p.segments(&p.objects[i])
		if err != nil {
			continue
		}
		for _, sg := range segs {
			live[sg.sec].add(sg)
		}
	}
	use := make([]uint64, len(live))
	for i := range live {
		live[i].merge()
		use[i] = min(live[i].size(), p.secSize[i])
	}
	return use
}
