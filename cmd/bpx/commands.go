package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one row of the commands table.
type command struct {
	Name    string // "ls"; a subcommand is "texture import"
	Usage   string // the synopsis after "bpx Name", one line per form
	Summary string // one line for "bpx help"
	Doc     string // the paragraph "bpx help Name" prints
	// Examples are printed after the flags; each Line must parse with the
	// command's flags (a test runs them through parseArgs).
	Examples []example
	Memory   memoryUse
	// Setup defines the command's flags on fs and returns the function
	// that runs the command with the positional arguments once fs is
	// parsed.
	Setup func(fs *flag.FlagSet) func(e *env, args []string) int
}

// example is one use of a command, for its help page.
type example struct {
	Comment string // what Line does, one line
	Line    string // a command line starting with "bpx Name"; no shell syntax
}

// commands is every command, in the order "bpx help" lists them. Flags are
// written --name in Usage and Doc, or -x when one letter long.
var commands = []*command{{
	Name:    "info",
	Usage:   "[--json] FILE",
	Summary: "show the main header, the decoded TypeExt and the section table",
	Doc: `Print the main header of a BPX file, its TypeExt decoded for the types
bpx knows (package, texture, model, shader), and the section table with the
name of every section type bpx knows for the file's type. For a package it
also counts the objects and the dead bytes; for a shader pack it names the
layout and lists the symbols (name, type, flags), the only sections read.
Nothing else is decompressed or verified: bpx verify does that.`,
	Memory: quickMemory,
	Examples: []example{
		{"Show the header, the TypeExt and the section table of a package.", "bpx info game.bpx"},
		{"The same as one JSON object, for scripts.", "bpx info --json game.bpx"},
	},
	Setup: setupInfo,
}, {
	Name:    "verify",
	Usage:   "[-q] [--trusted KEYS [--name NAME] [--min-version N]] FILE...",
	Summary: "check header and section checksums, decompress every section, check package tables and signatures",
	Doc: `Check the header checksum of each FILE, decompress every section and
check its checksum, and check the object table of a package, and what
repeats it: every object digest, the path index (against the tables and
the objects), the chunk digests bpx pull uses (against the stored bytes)
and the block maps of xz sections, so that a package that passes reads
the same through every path. Each FILE gets
one line on standard output, "ok" or "FAILED", and each problem one line on
standard error. The exit status is 1 when any file fails. With --trusted,
a FILE must also be signed (bpx sign) by a key of the trusted-keys file
KEYS, and every byte of it must match what the key signed: the "ok" line
names the keys that signed and what they state. --name and --min-version
refuse a file whose signers do not state that name (or whose key's
allowed_signers principals do not match it) or state an older version.`,
	Examples: []example{
		{"Check every file of a directory quietly; the exit status says if any failed.", "bpx verify -q assets/*.bpx"},
		{"Check that a mod is signed by a key in trusted.keys and unchanged.", "bpx verify --trusted trusted.keys mod.bpx"},
	},
	Setup: setupVerify,
}, {
	Name:    "cat",
	Usage:   "-s N [--raw] [--hex] [--trusted KEYS [--name NAME] [--min-version N]] FILE\n[--hex] [--trusted KEYS [--name NAME] [--min-version N]] [-L MOD.bpx]... PACKAGE PATH",
	Summary: "write a section (-s N) or a package object (PACKAGE PATH) to stdout",
	Doc: `Write section N of a BPX file (counting from 0) to standard output,
decompressed and verified, or as stored with --raw; or write the object
PATH of a package. --hex writes a hex dump instead of the bytes. With
--trusted, FILE or PACKAGE and each -L mod must be signed (bpx sign) by a
key of the trusted-keys file KEYS, and a byte that differs from what the
key signed is never written: the command fails instead. Bytes are written
as they are verified (a 64 KiB chunk at a time), so a large object that
fails midway has written its verified beginning: a consumer must check
the exit status (or write to a file and keep it only on success). With
--name, the signers must state that name (bpx sign --name) and the key's
allowed_signers principals must match it; with --min-version, a version
at least N (both for PACKAGE, not for -L mods).`,
	Memory: quickMemory,
	Examples: []example{
		{"Write the decompressed section 2 of a file as a hex dump.", "bpx cat -s 2 --hex game.bpx"},
		{"Write one object of a package as a mod over it shows it.", "bpx cat -L mod.bpx game.bpx textures/sky.png"},
	},
	Setup: setupCat,
}, {
	Name:    "ls",
	Usage:   "[-l] [-0] [--json] [--trusted KEYS [--name NAME] [--min-version N]] [-L MOD.bpx]... PACKAGE [DIR]",
	Summary: "list the objects of a package, or one directory",
	Doc: `List the objects of a package, one path a line, in the order of its
object table. A name is printed as it is when it is valid UTF-8, all
printable and does not start with a double quote; any other name, and any
that bpx unpack refuses (absolute, with "..", duplicate or empty), is printed
as a Go quoted string ("\x1b]0;x\a", "a\nb", "\u202e"), so that no name can
drive the terminal; -l marks refused names with !. -0 prints every name
exact and ends each line, of -l too, with a NUL instead of a newline, for
xargs -0; --json keeps names exact too. With --trusted, the package and
each -L mod must be signed by a key of the trusted-keys file KEYS, and
their tables match what it signed, else nothing is listed.

With DIR, ls lists that directory of the package's tree instead (with -L,
of the layered tree), sorted by name, subdirectories with a trailing slash
(-l shows "dir" for their size, --json their path with the slash). A
package with a path index lists a
directory without reading the object table and the strings: over HTTP, a
directory of 1,000 files of a package of a million costs a request or two.`,
	Memory: quickMemory,
	Examples: []example{
		{"List a package with sizes and where each object starts.", "bpx ls -l game.bpx"},
		{"Hand every name, exact, to another program.", "bpx ls -0 game.bpx"},
		{"List what a mod layered over a package shows, as JSON.", "bpx ls --json -L mod.bpx game.bpx"},
	},
	Setup: setupLs,
}, {
	Name:    "pack",
	Usage:   "[-o OUT] [-c xz|zstd|zlib|none] [-l fast|default|max] [--section-size N] [--block-size N] [--stable-sections] [--max-sections N] [--arch A] [--platform P] [--generator XY] [--meta FILE] [--key SECRET [--passphrase-file FILE]] [--skip-dangling] [-q] DIR",
	Summary: "pack a directory into a package",
	Doc: `Pack the regular files under DIR into a package, named by their paths
relative to DIR, as they are when the command starts. The package is
written to a temporary file renamed into place, so a failed pack leaves
nothing behind. OUT may lie in DIR: neither its temporary file nor an OUT
already there is packed (a note names the latter). Without -o the package
is named after the directory DIR, in the current directory (bpx pack . in
~/game writes game.bpx); the root directory needs -o. --arch, --platform
and --generator fill the package's TypeExt; --meta stores metadata; --key
signs the package as it is packed (see bpx sign). The
package has at most --max-sections sections (339, the most the reference
SDK reads through a buffered reader): past about 336 times --section-size
of data, sections grow to fit, and xz sections are then written in blocks
of --block-size that decode on their own: reading one small file decodes
the block that holds it, not its section. Files whose first 64 KiB do not
compress (PNG, JPEG, OGG, archives; past the headers of larger files) are
stored uncompressed, in sections of their own, and read in place.` + linkDoc + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Pack the directory assets into assets.bpx, xz-compressed.", "bpx pack assets"},
		{"Pack for 64-bit Linux with zlib (faster) into game.bpx.", "bpx pack -c zlib --arch x86_64 --platform Linux -o game.bpx assets"},
		{"Pack the smallest package, for players to download.", "bpx pack -l max -o game.bpx assets"},
		{"Pack and sign with the secret key modkey (bpx keygen).", "bpx pack --key modkey -o game.bpx assets"},
	},
	Setup: setupPack,
}, {
	Name:    "unpack",
	Usage:   "[-C DIR] [-f] [--skip-invalid] [-j N] [-q] [--trusted KEYS [--name NAME] [--min-version N]] [-L MOD.bpx]... PACKAGE [PATH...]",
	Summary: "extract the objects of a package into a directory",
	Doc: `Extract the objects of a package into DIR, or only the given PATHs (files
or directories). A package with a name that would escape DIR (absolute, with
"..", or through a symbolic link) or a duplicate name is refused, unless
--skip-invalid skips those objects. Existing files are kept unless -f (an
existing file is an error), but for what an unpack cut off leaves (a file
holding the first bytes of its object, or all of them), which is completed:
run an interrupted unpack again to finish it. Files get the modification
times they were packed with (bpx pack records them). With
-L, mod packages are layered over PACKAGE, each over the previous, and what
the stack shows is extracted (what a game loading them would see). With
--trusted, the package and each -L mod must be signed by a key of the
trusted-keys file KEYS, and a byte that differs from what the key signed
is never written: the unpack fails instead.`,
	Memory: boundedMemory,
	Examples: []example{
		{"Extract a whole package into the directory out.", "bpx unpack -C out game.bpx"},
		{"Extract one directory, overwriting files already there.", "bpx unpack -f -C out game.bpx textures"},
		{"Extract a mod only if a key in trusted.keys signed it and it is unchanged.", "bpx unpack --trusted trusted.keys -C out mod.bpx"},
	},
	Setup: setupUnpack,
}, {
	Name:    "add",
	Usage:   "[-C DIR] [-c xz|zstd|zlib|none] [-l fast|default|max] [--max-sections N] [--compact] [--key SECRET [--passphrase-file FILE]] [--skip-dangling] [-o OUT] PACKAGE PATH...",
	Summary: "add files or directories to a package, replacing objects of the same names",
	Doc: `Add each PATH (a file, or every regular file below a directory) to
PACKAGE as objects named by their paths relative to DIR, with /. An object of
the same name is replaced. A file identical to another file added is
stored once, and one identical to an object PACKAGE keeps is not stored:
its object shares those bytes. To tell, objects of the size of a file added
are read (the one it replaces and those of its base name first), decoding
sections that hold at most about as many bytes as the files added, plus
those of the files found; a copy beyond that is stored. Untouched data
sections are copied as they are,
and so are sections of other types (all edits keep them);
new objects go into new sections, joined with the last one when it holds
less than an eighth of a section (128 KiB), and the smallest neighbouring
sections are joined when the package would have more than --max-sections
(all edits do so). PACKAGE is replaced atomically (or -o
writes OUT), so a failed edit leaves it as it was; a PACKAGE that is a
symbolic link stays one, and the file it points to is edited (all edits
do so). An edit of PACKAGE while another runs waits for it and then
fails saying that PACKAGE changed (all edits do so): run it again. An edit
of a signed package removes its signature, which would no longer match,
and says so, unless --key signs the result (all edits do so). The files are listed
when the command starts; PACKAGE, OUT and the temporary file are never added,
even when a PATH holds them (a note names the first two).` + linkDoc + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Add (or replace) the files under assets/textures as textures/...", "bpx add -C assets game.bpx textures"},
	},
	Setup: setupAdd,
}, {
	Name:    "rm",
	Usage:   "[-c xz|zstd|zlib|none] [-l fast|default|max] [--max-sections N] [--compact] [--key SECRET [--passphrase-file FILE]] [-o OUT] PACKAGE NAME...",
	Summary: "remove objects or directories from a package",
	Doc: `Remove the objects NAME from PACKAGE; a NAME that is a directory removes
everything below it. A NAME that matches nothing is an error and nothing is
written. Removed bytes stay in their data sections (bpx info counts them as
dead bytes) until --compact or bpx repack re-encodes those sections.` + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Remove a directory and reclaim its bytes in the same step.", "bpx rm --compact game.bpx textures/old"},
	},
	Setup: setupRm,
}, {
	Name:    "mv",
	Usage:   "[-c xz|zstd|zlib|none] [-l fast|default|max] [--max-sections N] [--compact] [--key SECRET [--passphrase-file FILE]] [-o OUT] PACKAGE OLD NEW",
	Summary: "rename an object or a directory of a package",
	Doc: `Rename the object or directory OLD of PACKAGE to NEW, which must not
exist. Only the object table and the strings are rewritten.` + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Rename a directory, writing the result to a new package.", "bpx mv -o renamed.bpx game.bpx textures tex"},
	},
	Setup: setupMv,
}, {
	Name:    "repack",
	Usage:   "[--all] [-c xz|zstd|zlib|none] [-l fast|default|max] [--max-sections N] [--key SECRET [--passphrase-file FILE]] [-o OUT] PACKAGE",
	Summary: "reclaim the dead bytes of a package, or re-encode all of it",
	Doc: `Re-encode the data sections of PACKAGE that hold dead bytes (left by
replaced and removed objects), without them, and joins neighbouring data
sections that together fit a section (1 MiB; 4 MiB with -l max); the other
sections, and sections of other types than a package's, are copied as they
are. --all re-encodes every data section with -c, to change the
compression of a whole package.` + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Reclaim the bytes that removed and replaced objects left behind.", "bpx repack game.bpx"},
		{"Re-encode the whole package with zlib.", "bpx repack --all -c zlib -o game-zlib.bpx game.bpx"},
	},
	Setup: setupRepack,
}, {
	Name:    "diff",
	Usage:   "[--json] [-0] [--patch OUT.bpx [--key SECRET [--passphrase-file FILE]]] [--skip-dangling] A B",
	Summary: "compare two packages or directories; write the patch package that turns A into B",
	Doc: `Print the files added (+), removed (-) and modified (M) from A to B, one a
line sorted by name, compared by content; A and B are packages or
directories. Names are printed as bpx ls prints them; -0 prints them
exact and ends each line with a NUL instead. --patch also writes a mod
package with B's added and modified files and A's removed ones, such that
bpx unpack -L OUT.bpx A gives B (files only: sections of other types than
a package's are neither compared nor carried). A directory is read as bpx
pack and bpx add read it.` + linkDoc + ` Exit status as diff(1): 0 when A and B
hold the same files, 1 when they differ, 2 on trouble (bad usage, an
unreadable or damaged input, a dangling link), unlike the other commands,
which use 1 for bad input. --key signs the patch package. When A is a
package URL and B a local package (bpx diff URL LOCAL), the files are
compared by size and CRC-32C digest, fetching no object, and listed as
the update bpx pull URL LOCAL would make, from LOCAL to URL (+ what it
adds to LOCAL, - what it removes); a last line on standard error says
what that pull would fetch and copy.` + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"List what changed between two versions of a package.", "bpx diff old.bpx new.bpx"},
		{"What a pull would change and fetch, fetching only the tables.", "bpx diff https://cdn.example.com/game/assets.bpx assets.bpx"},
		{"Write the patch that turns old.bpx into new.bpx (apply: bpx unpack -L patch.bpx old.bpx).", "bpx diff --patch patch.bpx old.bpx new.bpx"},
	},
	Setup: setupDiff,
}, {
	Name:    "keygen",
	Usage:   "-o NAME [-C COMMENT] [--passphrase-file FILE]",
	Summary: "make a key pair that signs packages: the secret key NAME, the public key NAME.pub",
	Doc: `Make an Ed25519 key pair in OpenSSH's formats, as ssh-keygen -t ed25519
-f NAME does: the secret key in NAME (mode 0600), the public key, one line,
in NAME.pub, and print the key's ID (its SHA256 fingerprint). Existing files
are never overwritten. The secret key is encrypted with a passphrase: that of
--passphrase-file, else of $BPX_PASSPHRASE, else one typed twice when
standard input is a terminal (no echo); an empty one, or no terminal, leaves
it unencrypted, so that scripts and CI can sign. Sign with the secret key
(bpx sign, bpx pack --key); players trust the public key: its line in a
trusted-keys file, one key a line, that --trusted reads. An existing
~/.ssh/id_ed25519 signs as well.`,
	Memory: quickMemory,
	Examples: []example{
		{"Make the key pair modkey (secret) and modkey.pub (public).", "bpx keygen -C alice@example.org -o modkey"},
	},
	Setup: setupKeygen,
}, {
	Name:    "sign",
	Usage:   "--key SECRET [--passphrase-file FILE] [--name NAME] [--version N] [--expires DATE] [-o OUT] FILE",
	Summary: "sign a package (any BPX file) with a secret key",
	Doc: `Sign FILE with the secret key SECRET: the file gains a signature section
(a SHA-256 digest of every 64 KiB of the file and an OpenSSH SSHSIG
signature of those digests), which bpx verify --trusted, and --trusted on
cat, ls, unpack and -L, check; other BPX readers skip it. Its other bytes
are kept as they are. FILE is checked first as bpx verify checks it
(every section decoded, every digest, index and chunk list compared with
the bytes): a signature would vouch for what it finds, so a FILE with a
problem is not signed and the problems are printed. A file already signed
by others keeps their signatures. FILE is replaced atomically (or -o writes OUT), so a failed
sign leaves it as it was; a FILE that is a symbolic link stays one. An
encrypted SECRET's passphrase comes from --passphrase-file, else
$BPX_PASSPHRASE, else is asked for when standard input is a terminal.
Editing a signed package (add, rm, mv, repack) removes its signature
unless --key signs it again. --name, --version and --expires state, in
what the signature covers, the package's name, its release number and the
date after which readers refuse it (readers require them with --name and
--min-version: a mod cannot pass for the base game, nor an old release for
the current one); without them, a signed FILE keeps what it stated. A
SECRET that others may read (mode 0644) is refused, as ssh refuses it.` + interruptDoc,
	Memory: boundedMemory,
	Examples: []example{
		{"Sign a package in place with the key bpx keygen made.", "bpx sign --key modkey mod.bpx"},
		{"Sign release 8 of the mod named hats, which readers refuse from 2099 on.", "bpx sign --key modkey --name hats --version 8 --expires 2099-01-01 mod.bpx"},
		{"Sign with an SSH key, writing a signed copy.", "bpx sign --key ~/.ssh/id_ed25519 -o mod-signed.bpx mod.bpx"},
	},
	Setup: setupSign,
}, {
	Name:    "pull",
	Usage:   "[-q] [--seed FILE]... [-j N] [--trusted KEYS [--name NAME] [--min-version N]] URL LOCAL",
	Summary: "update LOCAL to the package at URL, downloading only what changed",
	Doc: `Make LOCAL a byte-identical copy of the package at URL (an http or https
URL, or a local file), downloading only what LOCAL does not already hold. A
package made by bpx pack or edited by bpx add, rm, mv or repack lists a
SHA-256 digest of every chunk of about 16 KiB of its stored bytes, cut where
the bytes say so that a file added, changed or removed moves only the cuts
near it. pull reads that list (two requests), reads LOCAL and each --seed
FILE to find the chunks they hold, copies those and fetches the rest with
range requests, adjacent chunks merged, -j at a time. Every chunk is checked
against its digest, the finished file as bpx verify checks it (and with
--trusted against a signature by a key of KEYS), then it is renamed over
LOCAL: a pull that fails leaves LOCAL as it was. Without LOCAL, pull
downloads the package (with --seed, still taking what the seeds hold). A
package without chunk digests is downloaded whole. LOCAL need not be a
package: any older file of the same name is read for chunks. The last line
says what was fetched and copied.

Interrupted (Ctrl-C, a dropped link, a kill), pull leaves LOCAL as it was
and keeps what it fetched in LOCAL.part: the next pull of the same URL
checks LOCAL.part's chunks and fetches only the missing ones, then removes
it. A pull that fails because of what the server sent removes LOCAL.part.`,
	Examples: []example{
		{"Update a game's package from its CDN.", "bpx pull https://cdn.example.com/game/assets.bpx assets.bpx"},
		{"Download a new mod release, taking what it shares with the previous one.", "bpx pull --seed hats-7.bpx https://mods.example.org/hats-8.bpx hats-8.bpx"},
		{"Update only to a release signed by the publisher's key.", "bpx pull --trusted publisher.keys https://cdn.example.com/game/assets.bpx assets.bpx"},
	},
	Setup: setupPull,
}, {
	Name:    "sd",
	Usage:   "[-s N] [--typed] [--compact] [--names a,b,...] [--depth N] [--ref-budget] FILE",
	Summary: "print a structured-data (BPXSD) section as JSON",
	Doc: `Print a structured-data section as JSON: the first section of type 0xFE,
or section N. Keys are named by the section's __debug__ list or by --names,
else shown as "#" and their hash. --typed prints the lossless form, which
keeps kinds, widths and hashes and which bpx pack --meta reads back.`,
	Examples: []example{
		{"Print the metadata of a package as JSON.", "bpx sd game.bpx"},
		{"Print section 3 losslessly, for bpx pack --meta.", "bpx sd -s 3 --typed model.bpx"},
	},
	Setup: setupSD,
}, {
	Name:    "table",
	Usage:   "[-s N] [--json] FILE",
	Summary: "print the rows of a table section (experimental type 0xFD)",
	Doc: `Print the live rows of a table section: the first section of type 0xFD,
or section N, which must be a table. Names come from the first strings
section. The text form is a line of column names, then one line per row,
cells separated by tabs, names and strings printed as bpx ls prints names
(Go-quoted when they hold a tab or any other character that is not
printable); --json prints a JSON array with one object per row, keyed by
column name, one row a line. Free (deleted) rows are skipped.`,
	Memory: quickMemory,
	Examples: []example{
		{"Print the first table of a file as tab-separated text.", "bpx table items.bpx"},
		{"Print section 4, a table, as JSON.", "bpx table -s 4 --json items.bpx"},
	},
	Setup: setupTable,
}, {
	Name:    "texture import",
	Usage:   "[-o OUT] [--format auto|rgb|rgba|grey|float] [--mipmaps N] [--compressed] [--cubemap] [--raw] IN.png...",
	Summary: "convert PNG images to a BPX texture",
	Doc: `Convert PNG images to a BPX texture: one image makes a 2D texture,
several an array, six with --cubemap a cube map (+X, -X, +Y, -Y, +Z, -Z).
Sides must be powers of two. IN.png "-" reads standard input (then -o is
required); -o - writes to standard output.` + interruptDoc,
	Examples: []example{
		{"Convert a PNG to a texture, sky.bpx.", "bpx texture import sky.png"},
		{"Make a cube map from six faces.", "bpx texture import --cubemap -o cube.bpx px.png nx.png py.png ny.png pz.png nz.png"},
	},
	Setup: setupTextureImport,
}, {
	Name:    "texture export",
	Usage:   "[-o OUT] [--layer N] IN.bpx",
	Summary: "convert a layer of a BPX texture to PNG",
	Doc: `Write one layer of a BPX texture as a PNG. Float textures become 16-bit
grey PNGs clamped to [0, 1]. -o - writes to standard output.` + interruptDoc,
	Examples: []example{
		{"Write layer 2 of a texture array as a PNG.", "bpx texture export --layer 2 -o layer2.png array.bpx"},
	},
	Setup: setupTextureExport,
}, {
	Name: "blk",
	Usage: "[--kind KIND] [--nm FILE] [--dict FILE] [--format text|json|typed-json] [--merge] [--lf] [-o OUT] FILE\n" +
		"--encode [--kind KIND] [--nm FILE] [--dict FILE] -o OUT FILE\n" +
		"[--kind KIND] --to-bpx -o OUT FILE",
	Summary: "convert Dagor BLK data blocks: binary (all kinds), text, JSON, typed JSON, BPX",
	Doc: `Print a Dagor BLK file as engine text (CRLF line ends unless --lf), as
wt_blk's JSON or as lossless typed JSON; with --encode, write it as binary
BLK of --kind; with --to-bpx, as a BPX container holding the tree as
structured data. FILE may be binary BLK of any kind, BLK text, typed JSON or
such a BPX container; "-" reads standard input. Without --encode, --kind
reads FILE as a binary body of that kind stored without its kind byte. SLIM
kinds need the shared name map: --nm, else the file "nm" beside FILE; the
zstd dictionary is, unless --dict is given, the file the name map names,
beside the name map.`,
	Examples: []example{
		{"Print a binary BLK as engine text with LF line ends.", "bpx blk --lf config.blk"},
		{"Encode BLK text as binary BLK of the fat kind.", "bpx blk --encode --kind fat -o config.bin config.blk"},
		{"Read a fat body that another tool stored without its kind byte.", "bpx blk --kind fat body.bin"},
	},
	Setup: setupBLK,
}, {
	Name:    "bo3d",
	Usage:   "[--json] FILE\n-o OUT FILE",
	Summary: "dump a BO3D mesh file, or convert it to a BPX model",
	Doc: `Print a BO3D mesh file as text, or as JSON with --json: its entities,
their transforms, keyframes and bones, and a summary of each mesh. -o
converts it to a BPX model ('M') with xz-compressed, CRC32-checked sections
and the entity hierarchy in a structured-data section. FILE "-" reads
standard input; -o - writes to standard output.` + interruptDoc,
	Examples: []example{
		{"Dump a BO3D mesh as JSON.", "bpx bo3d --json ship.bo3d"},
		{"Convert it to a BPX model.", "bpx bo3d -o ship.bpx ship.bo3d"},
	},
	Setup: setupBO3D,
}, {
	Name:    "serve",
	Usage:   "[--addr HOST:PORT] [--open] FILE...\n[--addr HOST:PORT] [--open] -L MOD.bpx... PACKAGE",
	Summary: "explore BPX files in the browser",
	Doc: `Serve a read-only page that explores BPX files: the directory tree of
a package with sizes, a filter and downloads, previews of textures, models,
images, text, structured data, BLK files and tables, and the container view
(header, TypeExt, sections, verify) of any file. FILE may be an http(s) URL.
With -L, the page shows the mods layered over PACKAGE. The URL printed is
served until interrupted; --addr 127.0.0.1:0 (the default) takes a free
port on this machine only.

The files are hostile input: listings and section tables come in pages
of at most 1 MiB, names longer than 4096 bytes are listed apart with the
names that are no paths, previews share a budget of 192 MiB of
decoded data (one larger than that is refused), a client that stops
reading an answer for 30 s is dropped, and the server sets a soft memory
limit of 384 MiB (GOMEMLIMIT overrides it).`,
	Examples: []example{
		{"Explore a package and open the page.", "bpx serve --open game.bpx"},
		{"Explore a base package with a mod over it, on port 8080.", "bpx serve --addr 127.0.0.1:8080 -L mod.bpx game.bpx"},
	},
	Memory: serverMemory,
	Setup:  setupServe,
}, {
	Name:    "version",
	Usage:   "",
	Summary: "print the version of bpx, the revision it was built from and the Go version",
	Doc: `Print the module version of bpx ("(devel)" for a build from a source
tree), the version-control revision it was built from, with "(modified)"
when the tree had uncommitted changes, and the Go version and platform.
bpx --version prints the same.`,
	Examples: []example{
		{"Show which build of bpx this is.", "bpx version"},
	},
	Memory: quickMemory,
	Setup:  setupVersion,
}, {
	Name:    "completion",
	Usage:   "bash|zsh|fish",
	Summary: "print a completion script for bash, zsh or fish",
	Doc: `Print a script that completes bpx's commands, subcommands, flags, the
values of flags that take one of a few, and file names, for the shell named.
Load it for the running shell, or save it where the shell finds completions
(for bash, a file in ~/.local/share/bash-completion/completions; for zsh,
_bpx in a directory of $fpath; for fish, ~/.config/fish/completions/bpx.fish).`,
	Examples: []example{
		{"The bash script; source <(bpx completion bash) loads it (zsh alike).", "bpx completion bash"},
		{"The fish script; bpx completion fish | source loads it.", "bpx completion fish"},
	},
	Memory: quickMemory,
	// Setup is set by init in completion.go: the script is built from
	// this table, which cannot refer to it in its own initializer.
}}

// lookup finds the command args start with and returns it with the
// arguments that follow its name. For an unknown command it prints the
// problem and returns nil and the exit status.
func lookup(e *env, args []string) (*command, []string, int) {
	name := args[0]
	if c := find(name); c != nil {
		return c, args[1:], exitOK
	}
	group := subcommands(name)
	if len(group) == 0 {
		fmt.Fprintf(e.Stderr, "bpx: unknown command %q; run 'bpx help' for the list\n", name)
		return nil, nil, exitUsage
	}
	if len(args) > 1 {
		if c := find(name + " " + args[1]); c != nil {
			return c, args[2:], exitOK
		}
		if isHelp(args[1]) {
			return nil, nil, help(e, args[:1])
		}
		fmt.Fprintf(e.Stderr, "bpx %s: unknown subcommand %q\n", name, args[1])
	} else {
		fmt.Fprintf(e.Stderr, "bpx %s: want a subcommand\n", name)
	}
	for i, c := range group {
		c.printForms(e.Stderr, i > 0)
	}
	fmt.Fprintf(e.Stderr, "Run 'bpx help %s' for their flags.\n", name)
	return nil, nil, exitUsage
}

// find returns the command called name, or nil.
func find(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// subcommands returns the commands whose names start with name and a space.
func subcommands(name string) []*command {
	var group []*command
	for _, c := range commands {
		if strings.HasPrefix(c.Name, name+" ") {
			group = append(group, c)
		}
	}
	return group
}

// help runs "bpx help [command]".
func help(e *env, names []string) int {
	if len(names) == 0 {
		printCommands(e.Stdout)
		return exitOK
	}
	name := strings.Join(names, " ")
	group := subcommands(name)
	if c := find(name); c != nil {
		group = []*command{c}
	}
	if len(group) == 0 {
		fmt.Fprintf(e.Stderr, "bpx help: unknown command %q; run 'bpx help' for the list\n", name)
		return exitUsage
	}
	for i, c := range group {
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		fs, _ := c.flags()
		c.printHelp(e.Stdout, fs)
	}
	return exitOK
}

// run runs c with the arguments after its name.
func (c *command) run(e *env, args []string) int {
	e.cmd = c
	if tuneMemory {
		c.Memory.apply()
	}
	fs, do := c.flags()
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.printHelp(e.Stdout, fs)
		return exitOK
	}
	if err != nil {
		return e.usageError("%s", longDashes(err.Error()))
	}
	return do(e, pos)
}

// flags returns a FlagSet holding c's flags, which prints nothing itself,
// and the function Setup returned.
func (c *command) flags() (*flag.FlagSet, func(e *env, args []string) int) {
	fs := flag.NewFlagSet("bpx "+c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, c.Setup(fs)
}

// parseArgs parses flags that may appear before, between or after the
// positional arguments ("bpx cat FILE -s 2" works like "bpx cat -s 2 FILE").
// A lone "--" ends flag parsing. It returns the positional arguments.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) > 0 && len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// longDashes rewrites the flag name in an error of the flag package ("flag
// provided but not defined: -json") in the --name style of the help.
func longDashes(msg string) string {
	for _, marker := range []string{"not defined: -", "needs an argument: -", "for flag -", "for -"} {
		i := strings.Index(msg, marker)
		if i < 0 {
			continue
		}
		j := i + len(marker)
		name := msg[j:]
		if k := strings.IndexByte(name, ':'); k >= 0 {
			name = name[:k]
		}
		if len(name) > 1 && name[0] != '-' {
			return msg[:j] + "-" + msg[j:]
		}
		return msg
	}
	return msg
}

// printUsage writes c's synopsis, one "bpx" line per form.
func (c *command) printUsage(w io.Writer) { c.printForms(w, false) }

// printForms writes c's synopsis; when more is set, it continues a synopsis
// already begun.
func (c *command) printForms(w io.Writer, more bool) {
	for i, form := range strings.Split(c.Usage, "\n") {
		prefix := "usage: "
		if i > 0 || more {
			prefix = "       "
		}
		fmt.Fprintln(w, strings.TrimRight(prefix+"bpx "+c.Name+" "+form, " "))
	}
}

// printHelp writes c's synopsis, description and flags (those of fs).
func (c *command) printHelp(w io.Writer, fs *flag.FlagSet) {
	c.printUsage(w)
	fmt.Fprintf(w, "\n%s\n", c.Doc)
	if hasFlags(fs) {
		fmt.Fprintf(w, "\nFlags:\n")
	}
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if value != "" {
			line += " " + value
		}
		fmt.Fprintf(w, "%s\n        %s%s\n", line, usage, defaultNote(f))
	})
	if len(c.Examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, ex := range c.Examples {
			fmt.Fprintf(w, "\n  # %s\n  %s\n", ex.Comment, ex.Line)
		}
	}
}

// hasFlags reports whether fs defines any flag.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// flagName is name as written in the help: --name, or -x for one letter.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// defaultNote is " (default X)" for a flag whose default is not the zero
// value of its type, else "".
func defaultNote(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf(" (default %q)", f.DefValue)
		}
	}
	return " (default " + f.DefValue + ")"
}

// printCommands writes the list of commands, one line each.
func printCommands(w io.Writer) {
	width := 0
	for _, c := range commands {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "usage: bpx <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun 'bpx help <command>' for a command's usage and flags.\n")
}
