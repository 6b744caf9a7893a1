// Package pack reads and writes BPX packages (type 'P'): asset archives
// that a game loads its files from, as an fs.FS.
//
// A package holds an object table (section type 2, 20-byte entries of size,
// name pointer, start section and offset), a strings section with the
// object names, an optional BPXSD metadata section and data sections that
// hold the objects' bytes back to back; an object may continue into the
// following sections. See the [BPX specification] rev 2 §14.
//
// # Reading
//
// Open (a file), NewReader (any io.ReaderAt) and New (an opened
// bpx.Reader) read the section table, the object table and the names; no
// object data (with WithTrustedKeys, see Signing, the signature too).
// Three layouts are read:
//
//   - revision 2 (container version 2): the object table;
//   - revision 1 (version 1): object headers {u64 size, u32 name} inline in
//     the data sections, which the reference SDK can no longer read;
//   - the version-0 draft: an AssetRegistry of {name, FileId} entries with
//     one File section per asset (FileId numbered from 1, as the draft's
//     section table), read-only.
//
// A Package is an fs.FS that also implements fs.ReadFileFS, fs.ReadDirFS,
// fs.StatFS and fs.SubFS (its subtrees keep those fast paths). Directories are synthesized from
// the object names; files implement io.Seeker and io.ReaderAt, so http.FS
// and seeking audio decoders work. Objects whose names are not valid fs paths
// (absolute, "..", empty, duplicates, both a file and a directory) are left
// out of the fs.FS but stay available through Objects, OpenObject and
// ReadObject; InvalidPaths lists them.
//
// A package of large tables (more than PathIndexThreshold, 1 MiB: about
// 25,000 objects) gets a path index as its first section (SectionPathIndex,
// WithPathIndex): opening it reads the index's root instead of the object
// table and the strings, and Open, Stat, ReadFile and ReadDir read one of its
// pages of 32 KiB. Opening one file of a package of a million objects then
// reads about 50 KB locally instead of 42 MB, and takes three HTTP requests
// through package remote. The tables are read when first needed (Objects,
// OpenObject, Unpack...; LoadTables).
//
// A package of 1 MiB of objects or more (ChunkDigestsThreshold,
// WithChunkDigests) ends with SectionChunkDigests: the SHA-256 of every
// content-defined chunk of about 16 KiB of its sections' stored bytes, 0.2%
// of its size. Package pull uses them to update a local copy from a
// server, downloading only the chunks the local files lack; a reader
// ignores them. ParseChunkDigests checks such a section's layout and
// sizes (what it allocates is bounded by the section's size);
// VerifyChunkDigests checks every chunk against the stored bytes, cut
// again and hashed (a second read of them, not decoded, at about 1.5 GB/s
// per processor); VerifySection, so VerifyAll and "bpx verify", checks
// the chunks of each section right after decoding it, so that the second
// read comes from the cache (over HTTP, each byte is fetched about once).
//
// A large stored file (music, video: StreamDigestsMin, 256 KiB, or more,
// stored raw) is read in the 64 KiB chunks a reader asks for, each checked
// against its CRC-32C in SectionStreamDigests (4 bytes per 64 KiB of such
// files): a music decoder seeking to the middle of an 11 MB OGG and
// decoding two seconds reads about 200 KB of the package, not the file
// twice.
//
// The files of the fs.FS have the modification times of the files AddFS
// packed (SectionModTimes, 8 bytes per object, read at the first ModTime
// that asks), and Unpack gives them to the files it writes; directories,
// objects written with Create, and packages of other writers have the
// zero time.
//
// Decompressed sections go through a cache bounded in bytes (WithCacheSize),
// so reading all objects in any order costs about one decompression per
// section. A package written by this package also holds the CRC-32C of
// each object (SectionDigests, 4 bytes per object): reading an object then
// decodes its section only up to the object's end, reading the stored
// bytes only up to there too, checks the object against its digest, and
// keeps the decoder in the cache, so a later read further into the section
// continues it. Without usable digests (packages of other writers, and
// those edited by tools that do not know them) the whole section is
// decoded and its checksum checked first; so it is for an object that
// spans sections. With WithTrustedKeys, every stored byte is checked
// against the signature before it is decoded, and no digest is needed.
// Reading sections in order, a Package decodes the next section in the
// background (see ObjectReader). Start is a 0-based section-table index,
// as the reference SDK writes it (the spec's "1-indexed" remark is not
// followed by any implementation); sections are located by type.
//
// # Verification
//
// Every byte a Package returns (through the fs.FS, OpenObject, ReadObject
// and Unpack alike) was checked before it is returned, on every read, by
// one of four checks:
//
//   - the signature, in a package opened WithTrustedKeys: every stored
//     byte is compared with the signed SHA-256 digests of its 64 KiB
//     chunk before it is decoded, so whatever decodes from them is what
//     the signer wrote;
//   - the chunk digests of SectionStreamDigests, for an object stored raw
//     that the section lists (a large stored file of a package written by
//     this package) under the object's digest and size: each 64 KiB chunk
//     a read touches is read whole and its CRC-32C compared before any of
//     its bytes is handed out (a chunk read in part is kept in the cache
//     for the next small read of a stream); the object's digest is then
//     not computed, and a damaged chunk fails only the reads that touch
//     it;
//   - the object's digest (SectionDigests; for a file found through a
//     path index that carries digests, its entry's), for an object that
//     lies in one section of a package with usable digests: the object is
//     decoded (its section up to its end; from a section too large for
//     the cache, the object alone if it fits a quarter of the cache) and
//     its CRC-32C compared before any of its bytes is handed out, again
//     at every load of its section: bytes read again after an eviction
//     are checked again;
//   - the section's checksum, for everything else (packages without
//     digests, objects that span sections, large objects in sections too
//     large for the cache, and the zstd sections of a local file, which
//     are decoded whole): the section is decoded whole and checked
//     before any of its bytes is handed out, in the cache when it fits a
//     quarter of it, else by bpx.Section.OpenVerified, which decodes it
//     whole once and then streams it from stored bytes checked against
//     SHA-256 digests of their 256 KiB chunks.
//
// A failed check is an error matching bpx.ErrChecksum or bpx.ErrFormat
// for the object that met it, never bytes. A section whose content failed
// is remembered as damaged while its stored bytes stay the same (see
// bpx.Section.Data), so a loader asking for each of its objects gets each
// error at once. Checksums and digests catch damage and broken servers;
// someone who can write the file can also write checksums that match it:
// only a signature says who wrote the bytes (see Signing).
//
// What one read costs: for a stored object with stream digests, the 64 KiB
// chunks it touches; with digests, the stored bytes of the object's
// section up to the object's end, read and decoded (over HTTP, from the
// section's start to the object's end, in 64 KiB blocks, less what an
// earlier read of the section already decoded); without them, or for an
// object that spans sections, each whole section it touches. A section
// too large for the cache costs the same from a decoder of it left by an
// earlier read before the object (else from its start), and, read through
// OpenVerified, once more whole at its first read; unless it is written in
// blocks (sections larger than WithBlockSize, as a package of more than
// about 336 MiB gets: bpx.Block), where an object read by itself costs the
// blocks that hold it (1 MiB each by default; over HTTP, the stream's
// index and those blocks' stored bytes, and the map's check: see
// Accelerators), kept in the cache for the next object of the same block.
//
// # Writing
//
// NewWriter works like zip.NewWriter: Create or CreateSized add an object,
// AddFS adds a whole tree, SetMetadata/SetMetadataValue and SetTypeExt set
// the package fields, Close writes the package. Small objects share data
// sections of about WithSectionSize bytes (DefaultSectionSize),
// large ones get their own. A package keeps within WithMaxSections
// sections (bpx.ReferenceMaxSections by default, the most the reference
// SDK reads through a buffered reader): sections grow, or are joined, to
// fit (see Writer), and an xz section larger than WithBlockSize is written
// as blocks that decode on their own. Data sections are compressed in parallel by the
// bpx.Writer. Sections are written in the reference SDK 4 order: object
// table, strings, metadata (once; the reference writes it twice), data.
//
// Data sections default to xz, which every BPX implementation reads
// (WithCompression). Zlib is the fast option, but the reference SDK cannot
// read zlib sections (nor write them): use xz or none for packages the
// reference must read. None suits payloads that are already compressed.
// Zstd (bpx.CompressZstd) is the profile for shipping a game: sections
// that decode several times faster than xz, for a package about 2% larger,
// in a file of container version bpx.VersionZstd, which only this module
// reads (the reference SDK refuses it rather than misread it); its
// sections carry the standard CRC-32, which this module computes several
// times faster than the reference's variant.
//
// Whatever the compression, the Writer stores objects that would not
// compress (PNG, JPEG, OGG, archives: judged from their first 64 KiB, past
// the metadata media files start with, never from their names; classify.go has the thresholds and their measurements)
// uncompressed, in stored sections of 16 times the section size, apart
// from the compressed ones: compressing them costs time both ways for
// nothing. A stored object is read in place, with one ReadAt of its bytes
// checked against its digest. An object that fits a section never spans
// two. Such packages read with the reference SDK as any other.
//
// # Mods: removals
//
// Package github.com/gobpx/bpx/overlay layers packages (a base, then mods)
// into one fs.FS. A mod can also remove files and directories of the
// packages below it. BPX has no field for that, so this module keeps the
// list in the metadata, by convention, under the key RemovedKey
// ("__removed__"): an Array of Strings, each a valid fs path other than "."
// naming a file or a directory (which removes everything under it).
// Writer.Remove records names, Package.Removed reads and validates them,
// which makes a *Package an overlay.Remover. Other BPX readers ignore the
// key.
//
// A BPXSD Array holds at most 255 values, so a longer list packs several
// names into each String ("//a/b//c//d/e.png": valid names never hold
// "//"); the list is one Array in every case, of any length (the metadata
// section is the bound). This matters to the reference SDK, which reads
// package metadata only if it holds at most 15 Arrays and Objects in all,
// the root included (sd.ReferenceMaxDepth): the removal list takes one of
// them. Metadata of your own that uses more than the other 13 is beyond
// the reference whatever the list. Readers also accept the Array of
// Arrays (groups) that earlier versions wrote past 255 names, which the
// reference cannot read from 3,316 names on.
//
// # Editing, diffing and patching
//
// NewEditor (or EditFile, which replaces the file atomically and fails
// with ErrChanged rather than undo another edit saved meanwhile) adds,
// replaces, removes and renames objects and whole directories of an
// existing revision 2 package. Data sections that still hold a live object
// are copied byte for byte; new objects go into new sections (joined with
// a small last section of the source, and neighbouring sections joined
// where the package would exceed its section limit); the tables are
// rewritten. Sections of other types than a package's are copied byte
// for byte too (streamed as stored, not decoded), after the data sections;
// a package with a second object table, strings or metadata section is
// refused (ErrNotEditable) rather than edited without it. Replaced and removed objects leave dead bytes
// (Package.DeadBytes) until Editor.Compact re-encodes just the sections
// that hold them. The chunk digests of the sections copied come from the
// source's list, checked first against the bytes they name (cut and
// hashed again, on up to GOMAXPROCS processors): a list that lies fails
// the edit with bpx.ErrChecksum naming the chunk, rather than pass into
// the edited package. The path index is written anew from the tables; a
// source whose index gives other files, places or digests than they do
// is refused (ErrNotEditable), at the cost of reading its index once.
//
// Diff compares two trees, packages or any fs.FS, by content; for two
// packages, objects placed alike in sections stored alike compare equal
// without decompression; trees are walked as WalkTree walks them, as for
// AddFS: symbolic links followed, a dangling one an error. WritePatch
// writes the mod package that turns one
// tree into the other when layered over it (package overlay), and UnpackFS
// extracts any fs.FS, such as such a stack, with Unpack's safety.
//
// # Signing
//
// A package can be signed by its author (package sign: Ed25519 keys in
// OpenSSH's formats, SSHSIG signatures of a manifest of SHA-256 digests of
// 64 KiB chunks, in a last section of type sign.SectionType that other
// BPX readers skip). WithSigningKey makes Writer.Close and Editor.Close
// (so EditFile, EditFileTo and a WritePatch into such a Writer) write a
// signed package: the package is written to a temporary file first, then
// signed into the destination; one section of the section limit is kept
// for the signature. The Editor never copies a signature over, which
// would no longer match: an edit with WithSigningKey signs anew, one
// without removes the signature, and Editor.SignatureRemoved says so.
// sign.SignFile signs an existing package in place.
//
// WithTrustedKeys makes Open and NewReader accept only a package signed
// by a trusted key, and check every byte read from then on: the
// Package's io.ReaderAt is wrapped with sign.Open before anything is
// read, so the tables, the metadata and every object, over a file or
// remote.Open alike, come from chunks hashed and compared first. A
// package that is unsigned, signed by no trusted key, or whose header or
// tables changed fails to open (sign.ErrUnsigned, ErrUntrusted,
// ErrTampered, all matching bpx.ErrSignature); reading an object that
// holds a changed byte fails with sign.ErrTampered and returns no byte of
// the chunk that holds it (a large object streams: the chunks before are
// returned). Over HTTP, a reader fetches the tables, the signature
// section and the chunks of the sections it reads, not the whole file.
// Package.Signers names the keys, and overlay.RequireSigned requires
// signed layers.
//
// # Unpacking
//
// Package.Unpack extracts into a directory through os.Root: names that would
// escape it are refused before anything is written, symbolic links leading
// outside are never followed, existing files are kept unless the Overwrite
// option is given, and a damaged object is an error with its partial file removed,
// never a silently truncated file (the reference SDK does both wrong).
//
// # Accelerators
//
// The object table and the strings are the authority on which bytes a
// name holds: the reference SDK, "bpx ls", Unpack and ReadObject read
// them. Everything else a Package uses to read faster is a second account
// of the same facts, which a crafted file can make disagree with the
// first. Each is checked against its authority before anything it says is
// used, so that a name reads the same bytes on every read path (fs.FS at
// any cache size and after any earlier reads, OpenObject, Unpack,
// overlays, locally or over HTTP) or fails; VerifyAll ("bpx verify")
// makes every reader's checks at once, so that a package it passes reads
// the same through every path; an edit checks what it carries over, and
// "bpx sign" refuses a file that "bpx verify" rejects:
//
//   - The path index (SectionPathIndex) finds a name's object without the
//     tables. Each entry is checked against the table row of the object it
//     names (size, start, offset and name) before it is used: a
//     comparison once the tables are loaded, else two small reads (the
//     20-byte row and the name; over HTTP, two range requests unless the
//     remote cache holds them: reading one object of a package of a
//     million by name takes 5 requests, not 3). An entry that differs
//     drops the index; the tables answer. Pages are checked against their
//     CRC-32C when loaded. VerifyStructure compares every entry with the
//     tables and SectionDigests (the index read once), VerifySection the
//     entries' digests with the objects where SectionDigests is unusable
//     (in the same pass). An edit writes a new index from the tables and
//     refuses a source whose index says otherwise (ErrNotEditable).
//   - An xz section's block map (bpx.Section.BlocksUpTo) places each
//     block's data in the section. It is checked against the blocks' LZMA2
//     chunk headers, which fix how much each block decodes to, before it
//     is used: its header and 6 bytes per chunk of up to 64 KiB of stored
//     bytes (over HTTP, that reads the stored section through the remote
//     cache once). A map that does not match is not used; the section
//     then fails as a whole decode does, and VerifySection reports it.
//     Maps are kept in the section cache, counted in its budget, and
//     refused beyond a quarter of it.
//   - Cache entries are keyed by what they hold (a section, a block, an
//     index page, a block map, or an object's bytes by section, offset,
//     size and the CRC-32C they matched), never by an object's number: two
//     readers share bytes only when they asked for the same bytes checked
//     the same way. The memory of which objects matched their digest lives
//     on the entry of their bytes, keyed the same way.
//   - Object digests (SectionDigests, or a path index entry's own) and
//     section checksums catch damage: a reader checks each object it takes
//     from a section decoded in part, VerifySection every object in the
//     pass that decodes its section. They are not collision resistant:
//     someone who writes the file can make bytes match them. So they never
//     decide which bytes a name gets; the checks above do. An edit carries
//     those of the objects it copies unread: a wrong one stays a checksum
//     error of its object, which VerifyAll reports.
//   - Stream digests (SectionStreamDigests) check the chunks of a large
//     stored object read in part. An entry names the bytes it describes
//     by their CRC-32C and size (the object digest's), so it applies to
//     an object only when the object's own digest and size are the
//     entry's, wherever the tables put it; the section is used only when
//     stored raw, its checksum holds and it parses. A chunk that does not
//     match its entry fails the read (bpx.ErrChecksum naming the object
//     and the bytes); VerifySection checks every entry against the bytes
//     of the objects it lists that lie in its section, in the pass that
//     checks their digests, and VerifyAll reads those that span sections
//     once more, through their chunks, and checks their digests; so a
//     list that disagrees with the objects is reported. An edit carries
//     the entries of the objects it keeps.
//   - Chunk digests (SectionChunkDigests): readers ignore them; a pull
//     checks each chunk it fetches. VerifySection cuts and hashes each
//     section's stored bytes again, an edit the chunks it takes from the
//     source's list (about 1.5 GB/s per processor for each of the cutting
//     and SHA-256; a lie is bpx.ErrChecksum naming the chunk's offset).
//
// # Security
//
// Packages are treated as hostile input. No input makes the reader panic or
// hang, and memory stays bounded:
//
//   - Object count: at most DefaultMaxObjects (WithMaxObjects), and the
//     object table must be that large in the file; objects cost 64 bytes
//     each plus their names (a compressed object table reserves room for
//     at most 16 times its stored size before its bytes are decoded).
//   - Times: SectionModTimes is read (at the first ModTime) only when its
//     header says it decodes to 12 bytes plus 8 a object, and then costs
//     8 bytes a object for as long as the Package lives.
//   - Names: opening reads the strings section whole (up to 4 GiB decoded);
//     SkipNames opens without reading it, for callers that only count
//     objects or dead bytes. A package with a usable path index (see
//     SectionPathIndex) opens reading its header and root only (at most
//     16 MiB, 30 bytes or so per page of 32 KiB); each lookup reads one
//     page (at most 104 KiB, the most a writer writes: an index with a
//     larger page is not used; checked against its CRC-32C and decoded
//     whole once, through the cache) and the tables are read as before at
//     the first call that needs them. A lookup costs time in proportion
//     to the bytes of its page and of the name looked up, however the
//     index is made: through a crafted index of 10,240 paths of 51 KiB,
//     1.3 times a lookup of the same name through the tables
//     (BenchmarkPathIndexBounds). An index that is stale, malformed or
//     damaged is not used: the tables answer, as for a package without
//     one. Each entry is checked against its object's table row before
//     it is used (see Accelerators): one bound to the tables that gives
//     other bytes than they do is dropped at that entry, and
//     VerifyStructure ("bpx verify") reports it.
//   - The directory tree behind the fs.FS methods is built on first use in
//     time and memory linear in the total length of the names (about 50
//     bytes per file and per directory): a name of a million levels costs
//     what a million short names do.
//   - An object's Start, Offset and Size are checked against the sections
//     before any byte is read (ErrObjectRange): no silent truncation and no
//     endless loop, where the reference SDK has both.
//   - Section cache: at most WithCacheSize bytes (default
//     DefaultCacheSize), each entry counted with everything it holds: its
//     buffer, the decoder of a section decoded in part (for xz, the
//     stored bytes read so far and about 32 KiB of state) and 1 KiB; the
//     buffers it keeps for reuse count too. Entries in use by readers
//     stay until they are done, beyond the budget. A section larger than
//     a quarter of the cache is never held whole: an object of it is
//     read alone (in the cache, if it fits a quarter of it), or the
//     section is streamed (up to 4 idle decoders are kept so that
//     objects read in order decode it once, each holding an xz
//     dictionary; see package bpx's limits), through
//     bpx.Section.OpenVerified where it must be checked whole, which
//     keeps 32 bytes per 256 KiB of its stored bytes. A stored object
//     with stream digests is read in 64 KiB chunks, each a cache entry.
//   - Reading sections in order, a Package decodes the next sections in
//     the background: at most GOMAXPROCS goroutines per Package, one
//     section each, only for sections the cache takes, counted in its
//     budget from the start, and only when evicting sections nobody is
//     reading makes room. Close waits for them. Their errors reach only a
//     reader of that section.
//   - Object digests: 8 bytes per object once the first read uses them,
//     besides the section that holds them (4 bytes per object). Bytes of
//     a section decoded in part are returned only within an object that
//     matched its digest; damage later in the section is found when a
//     reader gets there (ErrChecksum or bpx.ErrFormat for that object),
//     or by VerifySection and "bpx verify", which check every section
//     whole and every digest: those of SectionDigests or, where they are
//     unusable, those of the path index (VerifySection then keeps 5 bytes
//     per object, read from the index once), in the same pass; and the
//     chunk digests, whose list it keeps parsed (48 bytes per chunk of
//     about 16 KiB, allocated within the list section's size).
//   - Stream digests: SectionStreamDigests is read whole, once, at the
//     first open of an object it may list, only when stored raw (so what
//     it costs is its stored size: 12 bytes per listed object and 4 per
//     64 KiB of them), and kept for as long as the Package lives.
//   - ReadFile preallocates at most 64 MiB before the bytes arrive.
//   - Objects may share bytes (Writer.AddFS and Editor.AddFS store
//     identical files once),
//     so the objects of a package can add up to more bytes than its
//     sections hold, a hostile package to many times more: Unpack writes
//     each object in full. Check the sizes that Objects reports before
//     unpacking a package you do not trust to a disk that could fill.
//   - Removed returns the names of the metadata section's removal list, in
//     memory linear in the section's size (a few bytes per name, the
//     section being at most 4 GiB like any), each checked to be a valid fs
//     path other than "." (no "..", no absolute path, no empty name in a
//     packed String); an error names the element and the name.
//   - Container limits (section count, section size, xz dictionary) are
//     those of package bpx, set with WithReaderOptions.
//   - Signatures: with WithTrustedKeys no byte is used before a signature
//     by a trusted key checks; the limits of the signature section and of
//     the verified chunks kept (sign.CacheChunks, 1 MiB) are package
//     sign's, added to the section cache. Without WithTrustedKeys a
//     signature section is an unknown section, skipped: a signed package
//     is then as trusted as any other. Writing with WithSigningKey holds
//     the unsigned package in a temporary file as large as the package.
//
// Errors: malformed packages match bpx.ErrFormat (a *bpx.FormatError with
// the offset, or an *ObjectError naming the object), unsafe names
// ErrInsecurePath, out-of-range objects ErrObjectRange, a container of
// another type ErrNotPackage, and a package that fails WithTrustedKeys
// bpx.ErrSignature.
//
// [BPX specification]: https://github.com/BPXFormat/BPX-rs
package pack
