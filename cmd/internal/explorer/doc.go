// Package explorer is the web server behind "bpx serve": a read-only page
// that explores BPX files (packages and every other type) in the browser,
// with previews of textures, models, images, text, structured data, BLK
// files and tables, and the container view of every file.
//
// New takes the opened files; the Server is an http.Handler. It serves
// only GET and HEAD, and only the files it was given: nothing is written
// and no other file is opened.
//
// # The tree
//
// The page explores one tree of paths:
//
//   - one package (or a base package with mods layered over it, see
//     WithLayers): the package's objects;
//   - anything else: one entry per file, named after the file; a package
//     is a directory of its objects, any other file a leaf.
//
// Objects whose names are not valid paths (see pack.Package.InvalidPaths),
// or are longer than MaxPathLength bytes (4096, PATH_MAX), are not in the
// tree: /api/invalid lists them, quoted, and /api/object reads them by
// index. Their names are never used as paths.
//
// # Endpoints
//
// Every answer under /api/ is JSON unless said otherwise; an error is
// {"error": "..."} with status 400 (bad request), 404 (no such path, file,
// section or object), 422 (the file or object is malformed: the error text
// says what and where) or 413 (beyond a limit below). Targets are named by
// file=N (the Nth file given to New, from 0) or path=P (a path of the tree
// that is, or holds, a BPX file).
//
//	GET /                      the page
//	GET /static/{name}         its scripts and styles (embedded)
//	GET /raw/{path}            the bytes of a file of the tree; Range
//	                           requests, Content-Type from the name only
//	                           (never sniffed); ?download=1 adds
//	                           Content-Disposition
//	GET /api/files             the files given: id, name, size, type, the
//	                           error that kept one from opening, and where
//	                           each one is mounted in the tree
//	GET /api/list?dir=D&offset=N&limit=M[&q=Q[&deep=1]]
//	                           one page of directory D, directories first,
//	                           each group sorted by name (limit at most
//	                           MaxListLimit): entries with
//	                           name, path, dir, size, and the preview kind
//	                           guessed from the name; total counts all,
//	                           next is where the next page starts (a page
//	                           ends early at MaxPageBytes, see below).
//	                           q keeps names that contain Q (any case);
//	                           deep=1 searches every path below D
//	GET /api/invalid?file=N&offset=&limit=
//	                           objects of package N that are not in the
//	                           tree, paged as /api/list: index, name
//	                           (quoted, its first 256 bytes and "…" when
//	                           longer), length (of the name, in bytes),
//	                           why, size
//	GET /api/object?file=N&index=I
//	                           object I of package N, raw (as /raw)
//	GET /api/container?file=N | ?path=P
//	                           main header, decoded TypeExt, the first
//	                           page of the section table (sections, with
//	                           section type names; sectionCount counts
//	                           all, sectionsNext is where the next page
//	                           starts), and for a package its object
//	                           count and dead bytes
//	GET /api/sections?file=N|path=P&offset=&limit=
//	                           a page of the section table, paged as
//	                           /api/list (entries, total, next)
//	GET /api/verify?file=N|path=P&section=I
//	                           decompress and check section I
//	GET /api/section?file=N|path=P&section=I&offset=O&length=L
//	                           bytes O to O+L of section I, decompressed
//	                           (L at most 1 MiB), for the hex view
//	GET /api/preview?path=P    how the page previews P: its kind
//	                           (texture, model, bo3d, image, text, sd, blk,
//	                           container, hex) and what it needs
//	GET /api/texture.png?file=N|path=P&layer=L
//	                           layer L of a texture as PNG
//	GET /api/mesh?file=N|path=P
//	                           a model or BO3D mesh for WebGL, binary and
//	                           little-endian: u32 vertex count V, u32 index
//	                           count I, f32 positions[3V], f32 normals[3V]
//	                           (zero when the mesh has none), u32
//	                           indices[I] (triangles)
//	GET /api/sd?file=N|path=P[&section=I][&typed=1]
//	                           structured data as JSON (a BPXSD object,
//	                           a package's metadata, or section I)
//	GET /api/blk?file=N|path=P&as=text|json
//	                           a BLK file as engine text or JSON
//	GET /api/table?file=N|path=P&section=I&offset=&limit=
//	                           one page of the rows of a table section
//
// # Security
//
// The files are hostile input. Every decoder has limits of its own; the
// server adds the bounds that follow. A malformed file is an error on the
// page, never a crash of the server.
//
// Listings, invalid names and section tables are bounded in bytes, not
// only in entries. A page of /api/list, /api/invalid or a section table
// holds at most MaxListLimit entries and at most MaxPageBytes (1 MiB) of
// entries' JSON: it ends early (one entry at least) and says where the
// next starts. Names longer than MaxPathLength are no paths, and
// /api/invalid shows 256 bytes of a name at most, so a page of long names
// stays small. Listings are built (ordered, filtered) at most two at once,
// each within 64 MiB (entries of about 32 bytes, plus the paths a deep
// listing of a stack joins; the other listings share the packages' names),
// else the answer is 413 and asks for a narrower q; a request that goes
// away stops its build. The listing cache keeps at most 64 MiB (and 64
// listings) of recently used listings. A container inside the tree (an
// object of a package) may have at most 65,536 sections, checked before
// its section table is read (413 beyond). An xz section of any file may
// declare a dictionary of at most 8 MiB, what package writers use: its
// decoder allocates that much for every request reading the section, a
// /raw of a small object included (413 beyond).
//
// Previews share one budget of MaxPreviewBytes (192 MiB): each holds,
// while it decodes, what its decoding takes at most, waiting (first come,
// first served) while others hold too much; a request that goes away stops
// waiting, and /api/verify and the hex view stop decompressing (the other
// previews decode whole buffers, within their share, and answer nothing
// once their request is gone). A preview that needs more than the whole
// budget is refused (413). What each holds: a BPXSD object 128 bytes per
// byte (so at most MaxPreviewBytes/128, 1.5 MiB); a BO3D mesh 8 bytes per
// byte of the file, a model 8 per byte of its sections; a BLK file 64
// bytes per decoded byte if binary, 320 per byte if text, twice over for
// its answer (text or JSON; one that could be larger, as a name used by
// many entries makes it, is refused before it is written); a texture its
// pixels once, the layer's image where it is no view of them (RGB,
// float), its PNG and its section's decompressor (a 4096x4096 RGBA
// texture at most 137 MiB; the package's section cache, bounded on its
// own, is not counted); a table its sections twice and
// four times its page of at most 8 MiB of JSON; the container view of a
// package inside the tree 8 bytes per byte of its object table (its names
// are not read), of a shader pack 24 per byte of its symbol table and its
// names, and 12 MiB for the symbols of its answer (never its shaders nor
// its extended data: their sections are not read); /api/verify and the hex
// view the decompressor's state (an xz dictionary, at most 8 MiB) and the
// page, at most 1 MiB (a page deep in a large compressed section
// decompresses up to the offset asked). TestPreviewCostFactors checks
// these factors against what the decoders allocate. A preview's answer is
// made under its share, which then shrinks to the answer's size while it
// is written.
//
// Every answer is written under a write deadline of 30 s that moves on
// with every 256 KiB written: a download that progresses never dies, a
// client that stops reading is dropped after 30 s, and with it what its
// answer holds of the budget. "bpx serve" sets a soft memory limit
// (384 MiB) so that the server stays under 512 MiB however many clients
// ask.
//
// The page loads nothing from outside the binary: every response carries a
// Content-Security-Policy that allows scripts, styles, images and fonts
// from the server itself only. Raw bytes are served with a sandboxing
// policy and nosniff, so an object that is HTML or SVG cannot run scripts
// with the page's rights. Requests whose Host is a name other than
// localhost (or one given with WithHosts) are refused, so a web site that
// rebinds its own name to 127.0.0.1 cannot read the files.
package explorer
