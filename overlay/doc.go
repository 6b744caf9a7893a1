// Package overlay stacks file systems: a base package, then mods over it,
// seen as one fs.FS.
//
// New takes the layers lowest first. Any fs.FS can be a layer: a
// *pack.Package (github.com/gobpx/bpx/types/pack), an fstest.MapFS, or an
// os.DirFS, so that a loose folder can sit on top during development.
//
// # Layering
//
// A name shows from the highest layer that holds it:
//
//   - a file hides every file and directory of that name below it, and all
//     that is under such a directory;
//   - a directory merges with the directories of that name below it, down
//     to a layer that holds the name as a file: that file is hidden, and so
//     is everything below it.
//
// Open of a file returns the owning layer's file unchanged, so what that
// file implements (io.Seeker and io.ReaderAt for package files) stays
// available. Open of a directory returns an fs.ReadDirFile of the merged
// entries, sorted by name, each the highest layer's entry; Stat of a
// directory is the highest layer's. When a single layer shows a name, the
// call goes to that layer directly. fstest.TestFS passes on stacks of
// packages, maps and directories.
//
// # Removals
//
// A layer that implements Remover removes names of the layers below it: a
// file, or a directory with everything under it. The layer itself and the
// layers above it can add the names again. Packages store the list in
// their metadata under the key "__removed__" (pack.RemovedKey), an Array
// of Strings (past 255 names, several names a String), since BPX has no
// field for it; pack.Writer.Remove writes it and *pack.Package implements
// Remover. Other BPX readers ignore the key.
//
// A mod is written against one version of its base, so removing a name
// that the layers below do not hold is not an error: the removal simply
// has nothing to hide.
//
// # Signed layers
//
// A game that loads only mods signed by keys it trusts opens each package
// with pack.WithTrustedKeys (which checks the signature at open and every
// byte read afterwards, see package sign) and stacks them with
// RequireSigned: it fails, naming the layer, for any layer that does not
// implement Signed or names no trusted signer (an unsigned package, one
// opened without trusted keys, a loose folder). A game that signs nothing
// of its own and wants every mod signed stacks them with a Policy instead:
// Policy{Unsigned: 1}.New(base, mods...) takes the base as it is and
// requires a trusted signer of every layer above it (of Policy.Keys, when
// given). FS.Signers tells which keys signed each layer, with New as well.
//
// # Caching and changing layers
//
// New calls Removed and Signers once per layer and reads nothing else. Afterwards the
// FS remembers, for each directory it has looked up, which layers hold
// it; it remembers nothing about files. Layers must therefore not change
// while the FS is in use, except for the contents of their files: a
// directory created in a layer after the FS first looked up that name may
// stay hidden, and a removed one makes its layer's errors show. New is
// cheap; make a new FS to see such changes (for example when the files of
// a loose-folder layer change on disk).
//
// # Security
//
// The FS adds no access of its own: every name is an fs path (validated
// with fs.ValidPath), passed unchanged to the layers, so no name, removal
// or layer can reach outside the layers' own trees; a layer's escapes are
// its own (os.DirFS follows symbolic links, a Package refuses unsafe
// names).
//
// A hostile layer can hide or replace any name of the layers below it,
// which is what a mod is for; it cannot affect layers above it.
// RequireSigned limits the layers to those a trusted key signed; it
// trusts what the layers' Signers methods say, so the checks are the
// layers' own (pack.WithTrustedKeys verifies every byte it returns). Its
// removal list costs memory linear in its length, which for a package is
// bounded by its metadata section (a few bytes per name, each a checked
// fs path, any number of them); New fails with an error matching
// bpx.ErrFormat, naming the layer and the name, for a removal that is not
// a valid fs path. The directory cache holds only directories that exist
// in the layers, at most one entry each, whatever names callers look up.
// Lookups cost one probe per layer that shows the parent directory, plus,
// the first time a directory is seen, one per layer and path element; a
// deep name costs what as many short ones do.
package overlay
