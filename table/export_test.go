package table

// SetMaxSectionSize lowers the Builder's section size limit for a test
// and returns a function that restores it.
func SetMaxSectionSize(n int64) (restore func()) {
	old := maxSectionSize
	maxSectionSize = n
	return func() { maxSectionSize = old }
}
