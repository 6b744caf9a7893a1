package pack

// CachedSections returns how many decompressed sections p's cache holds.
func CachedSections(p *Package) int {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	return len(p.cache.entries)
}

// CachedSection reports whether p's cache holds section sec.
func CachedSection(p *Package, sec int) bool {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	return p.cache.entries[sectionKey(sec)] != nil
}

// cachedObject reports whether p's cache holds the bytes of o read by
// themselves.
func cachedObject(p *Package, o *Object) bool {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	for k := range p.cache.entries {
		if k.kind == keyObject && k.sec == int(o.Start) && k.off == uint64(o.Offset) && k.size == o.Size {
			return true
		}
	}
	return false
}

// compressAll makes a Writer put every object in compressed sections, as
// it did before it stored incompressible ones (classify.go): for tests
// of other things that use random bytes.
func compressAll() WriterOption {
	return func(c *writerConfig) error { c.compressAll = true; return nil }
}

// TablesRead reports whether p has read its object table.
func TablesRead(p *Package) bool { return p.objects != nil }
