// Package pull updates a local copy of a BPX package from a newer version
// of it on a plain HTTP server (or any io.ReaderAt), downloading only what
// the local files do not already hold.
//
// A package written by this module's pack.Writer or pack.Editor carries
// SectionChunkDigests (see package pack): its sections' stored bytes are
// cut into content-defined chunks of about 16 KiB, each listed with its
// SHA-256. Pull reads the new package's header, section table and chunk
// digests (two requests), cuts the local package (and any other local
// files given as seeds) the same way, copies every chunk whose digest it
// finds there, and fetches the rest with range requests, adjacent chunks
// merged into one request, a few requests in flight. Because the cuts
// depend on the bytes and not on their offsets, a section whose objects
// moved (a package rebuilt from a changed tree, or edited with bpx add)
// still shares the chunks of the bytes that did not change.
//
// The result is written to LOCAL.part beside LOCAL and renamed over LOCAL
// once complete and checked, so that LOCAL is the old file or the new
// one, never a mix. An interrupted pull (a cancelled context, a dropped
// connection, a killed process) leaves LOCAL as it was and keeps
// LOCAL.part, the one file it leaves behind: the next pull of the same
// file checks each chunk of LOCAL.part against the new digests and
// fetches only the chunks it lacks. A pull that completes, or fails
// because of what the server sent (a status other than 5xx, 408 and 429,
// bytes that fail their digest, a file that is not what it says),
// removes it; one cut off (no answer, a timeout, a server saying to try
// later, the file changing on the server, a local error) keeps it.
//
// A pull writes no file but one it created itself: it resumes LOCAL.part
// only if it is a regular file of the user running the pull that no other
// user can write and no other name links to; anything else at that name
// (a symbolic link, a hard link, a FIFO, another user's file) is removed,
// never written or followed, and a new LOCAL.part created, readable and
// writable by its owner alone until it gets LOCAL's mode (for a first
// download, the mode the umask gives a new file) right before the rename.
// LOCAL must be a regular file or not exist: a symbolic link (pull into
// the file it names), a directory or a FIFO is refused before anything is
// fetched. LOCAL and the seeds are opened without waiting on a FIFO.
// LOCAL.part is locked (flock, where the system has it) from its opening
// to its rename over LOCAL or its removal, and the file locked is checked
// to still be the one at that name: two pulls of one LOCAL never write
// into the same file (the second fails with ErrBusy).
//
// A package without chunk digests (written by an earlier release or by
// another implementation) is downloaded whole, and so is a BPX file of
// another type or a version-0 draft file; a file that is not BPX fails the
// pull (bpx.ErrFormat). A whole download that is interrupted starts over.
// So does PullURL from a server (or a cache in front of it) that answers
// range requests with the whole file: it downloads the file whole with one
// plain GET (remote.Get), taking no more than the size its head gives,
// and checks it as any pull's; WithRangesOnly makes it fail instead.
//
// # Security
//
// The server is not trusted. A chunk taken from a local file is used only
// when its SHA-256 is the digest the server lists; every fetched chunk is
// checked against its digest before the file is complete, and a chunk
// that does not match fails the pull (bpx.ErrChecksum). The bytes the
// digests do not cover are the header and section table (checked by the
// header's checksum), the digests (by their section's checksum, from the
// header) and what follows them, a signature, which is fetched in the
// digests' own request, so that it comes from the same file. The size
// the server states must be the file's own: where its sections end, and
// its header's file size (else bpx.ErrFormat, before anything else is
// fetched or written).
//
// With WithTrustedKeys, the signature and what its signers state are
// checked against the key ring (its requirements included) before any
// chunk is fetched, whatever the pull then does: a local file that
// already is the served one is checked against the signature too, every
// byte. The complete new file is checked as "bpx verify" checks it (as
// "bpx verify --trusted" does with WithTrustedKeys) before it replaces
// LOCAL: for a package, pack.Package.VerifyAll. Without WithTrustedKeys a
// server can of course serve any package it likes, consistently.
// remote.File pins the file's validator (ETag or Last-Modified), so that
// a file that changes during a pull fails it.
//
// Limits: the chunk digests section may hold at most MaxDigestsSize bytes
// (a million chunks; packages choose larger chunks above 16 GiB to stay
// under it), a request at most MaxRequest bytes, and a chunk at most
// MaxChunk, and no chunk but the last shorter than the list's own
// minimum (pack.ParseChunkList refuses such a list). Memory: the digests
// section as fetched (36 bytes a chunk) and 32 more a chunk, plus
// MaxRequest per request in flight, twice the longest chunk (or less, for
// local files shorter than that) and what the final check holds (that of
// pack.Package.VerifyAll), whatever the package's size: measured as peak
// RSS, 74 bytes a chunk (TestPullMemoryPerChunk in cmd/bpx, a list of
// 210,000 chunks of the smallest sizes the format allows). A pull reads
// every local file it is given once, whole.
//
// Time: PullURL's requests for the head, the digests and a signature
// each end within remote's request timeout (remote.WithRequestTimeout);
// the fetch of the rest within a minute more than its bytes take at
// WithMinRate's rate (DefaultMinRate, 16 KiB a second): a server that
// drips its bytes, or stalls, fails the pull then, keeping LOCAL.part.
package pull
