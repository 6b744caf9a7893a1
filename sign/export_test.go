package sign

// MatchPatternList is matchPatternList, for the tests.
var MatchPatternList = matchPatternList

// SetPageChunks makes Sign page manifests of more than n chunks, in pages
// of n, until the function returned is called.
func SetPageChunks(n uint32) func() {
	old := pageChunks
	pageChunks = n
	return func() { pageChunks = old }
}

// SetChunkSize makes Sign use chunks of n bytes (a power of two from 4
// KiB) until the function returned is called.
func SetChunkSize(n uint32) func() {
	old := signChunk
	signChunk = n
	return func() { signChunk = old }
}
