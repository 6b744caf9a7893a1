package pack

// DeadBytes returns how many uncompressed bytes of the data sections no
// object uses: what replacing and removing objects with an Editor leaves
// behind until the package is compacted. It reads only the object table;
// objects whose data lies outside the data sections are not counted as
// using anything. Overlapping objects count their shared bytes once per
// object, so a package whose objects overlap reports less than is free.
func (p *Package) DeadBytes() uint64 {
	var data, used uint64
	for i, s := range p.Reader.Sections {
		if s.Type == p.dataTyp {
			data += p.secSize[i]
		}
	}
	if p.Revision != 2 {
		return 0 // inline headers (revision 1) and the draft are not table-placed
	}
	for _, u := range p.sectionUse() {
		used += u
	}
	return data - min(used, data)
}

// sectionUse returns, for every section of the container, how many of its
// uncompressed bytes the objects use.
func (p *Package) sectionUse() []uint64 {
	use := make([]uint64, len(p.Reader.Sections))
	for i := range p.objects {
		segs, err := p.segments(&p.objects[i])
		if err != nil {
			continue
		}
		for _, sg := range segs {
			use[sg.sec] = min(use[sg.sec]+sg.n, p.secSize[sg.sec])
		}
	}
	return use
}
