// Package sign signs BPX files and verifies them against their authors'
// keys, so that a player, or a game loading a mod, can tell who made a
// file and that nobody changed a byte of it on the way. It works on any
// BPX container (packages, textures, shaders); package types/pack uses it
// for pack.WithTrustedKeys and pack.WithSigningKey.
//
// # Keys and signatures
//
// Keys are Ed25519 keys in OpenSSH's formats: the secret key is an
// "OPENSSH PRIVATE KEY" PEM file (optionally encrypted with a passphrase,
// as ssh-keygen writes it), the public key one authorized_keys line
// ("ssh-ed25519 AAAA... comment"). A key is named by its ID, the SHA-256
// fingerprint that ssh-keygen -l prints ("SHA256:..."). A modder's
// existing ~/.ssh/id_ed25519 signs as well as one made by GenerateKey.
//
// A signature is an OpenSSH SSHSIG signature (PROTOCOL.sshsig: the
// "SSHSIG" blob, namespace Namespace, hash sha512) of the manifest, so
// that ssh-keygen -Y verify -n bpx verifies it too: the manifest is the
// message, and its signature the blob of an armored "SSH SIGNATURE".
//
// A KeyRing is the set of keys a reader trusts, read from a file of
// authorized_keys and .pub lines (a key trusted for any package) and ssh's
// allowed_signers lines, which are read exactly as ssh-keygen -Y verify
// reads them (see ParseKeyRing): their principals are the names the key
// may sign, and their options (namespaces, cert-authority, valid-after,
// valid-before) apply; a line ssh-keygen refuses is an error.
//
// # What a signature states
//
// A signature binds the bytes of a file to a key. The signer may also
// state, in what the signature covers, a Statement: the package's name,
// its release number (Version) and when readers must stop accepting it
// (Expires). A reader asks for them with KeyRing.Require: the name it
// wants, and the least version it accepts.
//
// The Update Framework (TUF) names the attacks on software updates; for a
// game that loads packages from a mirror, a CDN or a stranger:
//
//   - Arbitrary package (a file the key holder did not make): stopped. No
//     byte of a file is returned unless a trusted key signed it.
//   - Substitution, or the wrong role (a mod signed by a trusted key served
//     as the base game): stopped when the reader requires the name
//     (Requirement.Name) and the key ring limits each key to its names (the
//     principals of its allowed_signers line). Without a required name,
//     any file a trusted key signed is accepted in any role.
//   - Rollback (an older, validly signed release served as the current
//     one, to bring back a fixed flaw): stopped when the reader requires
//     the version it last installed (Requirement.MinVersion). Remembering
//     that version is the caller's job: a launcher stores the Version of
//     what it installed (Verified.Statement) and requires it from then on.
//   - Freeze (a mirror that keeps serving the release it has, so that the
//     reader never learns of a newer one): bounded by Expires, after which
//     every reader refuses the file; the signer re-signs the current
//     release before it expires. Noticing a newer release sooner (asking
//     the publisher's own server) is the caller's job.
//   - Mix-and-match (parts of different releases combined): stopped within
//     a file, since one manifest covers every byte of it. Across files (a
//     base of one release and a patch of another) it is the caller's job,
//     by requiring names and versions of each.
//   - Endless data and slow retrieval: a Verified reads only what the
//     manifest covers, and the limits below bound what Open reads and
//     holds before trust; timeouts are the transport's (package remote).
//   - Key compromise: a key ring cannot revoke by itself; remove the key's
//     line, or end it with valid-before.
//
// An updater checks what it downloads with the same KeyRing and
// Requirement (the name it installed, at least the version it has) before
// it replaces anything; bpx pull, of the updates work, is to do so.
//
// # What a signed file holds
//
// A signed file is a BPX file whose last section, of type SectionType
// (0xF0), holds a manifest and one or more signatures of it. Other
// readers skip the section: the reference SDK looks sections up by type
// and ignores types it does not know, so signed packages read there as
// before. All integers are little-endian, as in BPX.
//
// The signature section:
//
//	magic       8 bytes  "BPXSIG\x00\x01", or "BPXSIG\x00\x02" with a paged manifest
//	manifest    u32 length, then the manifest
//	signatures  u32 count (1 to MaxSignatures), then each: u32 length
//	            (at most 4096), then the SSHSIG blob (binary, unarmored)
//	digests     magic 2 only: the SHA-256 of each chunk, in order (32 bytes
//	            each), in pages of the manifest's page size
//
// The manifest, the message each signature signs:
//
//	magic       8 bytes  "BPXMAN\x00\x01", or "BPXMAN\x00\x02" with a statement,
//	            "BPXMAN\x00\x03" paged, "BPXMAN\x00\x04" paged with a statement
//	hash        u8: 1 = SHA-256; 3 bytes zero
//	chunk       u32: the chunk size, a power of two from 4 KiB to 16 MiB
//	            (ChunkSize when this package writes it; larger over 129 GiB)
//	type        u8, version u32, type ext 16 bytes: the main header's
//	statement   only with magic 2: u8 length, then the name (UTF-8, no
//	            control characters); u64 version; u64 expiry in Unix
//	            seconds (0: never)
//	sections    u32 N: the sections before the signature section, then
//	            their N 24-byte section headers exactly as in the table
//	data        u64 start, u64 end: the byte range of the file after the
//	            section table up to the signature section
//	digests     SHA-256 of each chunk of [start, end) in order, the last
//	            one possibly shorter: ceil((end-start)/chunk) times 32 bytes
//	            or, paged: u32 page, the number of chunk digests a page
//	            holds (a power of two from 64 to 65536), then the SHA-256
//	            of each page of the section's chunk digests, the last page
//	            possibly shorter: ceil(chunks/page) times 32 bytes
//
// Sign writes magic 1 when nothing is stated, so that files signed before
// statements existed and files signed without one are the same, and pages
// the manifest of a file of more than PageChunks chunks (128 MiB), in
// pages of PageChunks: a reader then needs the manifest and the page of
// the chunks it reads, whatever the file's size (flat, a manifest of a
// 16 GiB file is 8 MiB, read whole before the first verified byte).
// Releases of this module from before pages (magic 3 and 4) read such
// files unverified only.
//
// A file matches its manifest when its main header has the manifest's
// type, version and type ext and N+1 sections, its first N section headers
// are the manifest's byte for byte, the last one is the signature
// section (SectionType) at offset end, the table ends at start (40 + 24 *
// (N+1)), the file is exactly as long as the signature section's end, and
// every chunk hashes to its digest. The rest of the header and table is
// fixed by these: the main header's FileSize must be the file's size and
// its checksum right, and the signature section's header is what Sign
// writes (raw, no checksum: Flags, Checksum and the reserved bytes 0,
// CSize = USize), and no other section is of type SectionType. So a
// signature binds the whole file: a signature section moved to another
// file, reordered or changed sections, appended or removed bytes, a
// stripped signature (when keys are required) and any flipped bit are all
// detected. The signature section's bytes are not in the manifest (adding
// a signature changes them); they are checked by parsing (every byte
// belongs to a field) and by the signatures themselves: every signature
// in the file must verify over the manifest, against the key it names,
// trusted or not, or the file is ErrTampered. A signed file thus holds
// exactly what its signers wrote, and a Verified returns no byte that
// neither the manifest nor a verified signature covers.
//
// Sign leaves a file's bytes as they are, but moves every section by 24
// bytes; it refuses a file whose sections do not all lie after the table
// (they could not move). The signature section is one more section: a
// file of bpx.ReferenceMaxSections sections signed has one more than the
// reference SDK reads through a buffered reader, so the package writers
// keep one section free for it (pack.WithSigningKey). Re-signing a signed file keeps its layout; Strip gives
// back the unsigned file byte for byte.
//
// SHA-256 is the digest: it is the standard one, ssh-keygen and every
// platform have it, and with the SHA extensions of current x86 and ARM
// processors Go computes it at over 1.5 GB/s, faster than the data can be
// decompressed. Chunks of 64 KiB make the manifest 0.05% of the file
// (32 bytes per 64 KiB) and let a reader over HTTP verify a few chunks
// around what it reads rather than the whole file.
//
// # Reading
//
// Open checks the signatures of a file against a KeyRing, and the file
// against the manifest, and returns a Verified: an io.ReaderAt that
// returns only bytes that match the manifest. Every read is served from
// whole chunks that were hashed and compared before any byte of them is
// returned (a few verified chunks are cached, so that reading a section
// in small pieces hashes each chunk once, and a reader in order has the
// next chunk hashed on another core while it hashes one). Opening a container, a package
// or an overlay over a Verified, locally or over HTTP (package remote),
// thus never returns a byte that does not match what the author signed.
//
// # Security
//
// Everything in a file, the signature section included, may come from an
// attacker; no byte is trusted before a signature by a trusted key over
// the manifest checks. Limits: the section table holds at most
// bpx.DefaultMaxSections headers and must fit in the file; Open reads it
// in pieces of 1 MiB, so that what it holds grows with what arrives (at
// most twice what was read: a server that claims millions of sections and
// stalls costs what it sent). The signature section is at most
// MaxSectionSize bytes (its size checked against the file's first); Open
// reads it from its start as far as its manifest and signatures go, in
// reads that double from 64 KiB (the whole section, unpaged), and a
// Verified reads pages of chunk digests as it needs them, each checked
// against the manifest before use, keeping 4 (256 KiB); at most
// MaxSignatures signatures of at most 4096
// bytes each, chunks from 4 KiB to 16 MiB, the manifest's section count
// must equal the header's minus one and its digest count must be the one
// its data range implies; every length is checked against the bytes that
// remain before it is used. Open's work is bounded before any trust: the
// header, the table and the data range are compared with the manifest
// first (a manifest claiming more data than the file holds costs no
// hashing), then the manifest is hashed once (SHA-512, as SSHSIG does)
// and each signature checked once against that hash. A Verified caches at
// most CacheChunks verified chunks, and at most CacheChunks * ChunkSize
// bytes (256 KiB) unless a single chunk is larger; each read that misses
// the cache holds one more chunk while it checks it, and a read of whole
// chunks is checked in the caller's buffer, which is cleared from the
// first chunk that does not match: a reader that stops at an error has
// written only verified bytes, and a consumer that streams a large object
// must still check the error (bpx cat's exit status) before using what it
// received. Sign holds the manifest (32 bytes per chunk) and a 1 MiB
// buffer, and picks a larger chunk for files over 129 GiB so that the
// manifest stays within MaxSectionSize. Only Ed25519 keys are accepted;
// other key types are an error naming the type. Key ring files are at
// most 1 MiB; an allowed_signers pattern is matched in time proportional
// to its length times the name's.
package sign
