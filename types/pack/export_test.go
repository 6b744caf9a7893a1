package pack

// CachedSections returns how many decompressed sections p's cache holds.
func CachedSections(p *Package) int {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	return len(p.cache.entries)
}

// CachedSection reports whether p's cache holds section sec.
func CachedSection(p *Package, sec int64) bool {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	return p.cache.entries[sec] != nil
}

// compressAll makes a Writer put every object in compressed sections, as
// it did before it stored incompressible ones (classify.go): for tests
// of other things that use random bytes.
func compressAll() WriterOption {
	return func(c *writerConfig) error { c.compressAll = true; return nil }
}

// TablesRead reports whether p has read its object table.
func TablesRead(p *Package) bool { return p.objects != nil }
