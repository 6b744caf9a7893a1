package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"io/fs"
)

// A package may store identical objects once: several entries of the
// object table then point at the same bytes, which every reader handles
// (each entry is read on its own, as the reference SDK does) and the
// Editor keeps shared when it moves them. Writer.AddFS stores each
// distinct file once; Create writes what it is given.

// contentKey identifies a file's content: its size and SHA-256.
type contentKey struct {
	size int64
	sum  [sha256.Size]byte
}

// findCopies returns, for every file of files with the same size and
// SHA-256 as an earlier one, the index of the first such file, and the
// key of every file that has copies. Only files whose size another file
// shares are read, so a tree without copies costs one map of sizes.
func findCopies(fsys fs.FS, files []treeFile) (copyOf map[int]int, keys map[int]contentKey, err error) {
	bySize := make(map[int64]int, len(files))
	for _, f := range files {
		if f.size > 0 {
			bySize[f.size]++
		}
	}
	first := map[contentKey]int{}
	copyOf, keys = map[int]int{}, map[int]contentKey{}
	h := sha256.New()
	buf := make([]byte, 32<<10)
	for i, f := range files {
		if f.size == 0 || bySize[f.size] < 2 {
			continue
		}
		k, err := fileKey(fsys, f, h, buf)
		if err != nil {
			return nil, nil, err
		}
		if j, ok := first[k]; ok {
			copyOf[i] = j
			keys[j] = k
		} else {
			first[k] = i
		}
	}
	return copyOf, keys, nil
}

// fileKey reads the file f of fsys and returns its content key.
func fileKey(fsys fs.FS, f treeFile, h hash.Hash, buf []byte) (contentKey, error) {
	r, err := fsys.Open(f.name)
	if err != nil {
		return contentKey{}, err
	}
	defer r.Close()
	h.Reset()
	n, err := io.CopyBuffer(h, r, buf)
	if err != nil {
		return contentKey{}, err
	}
	k := contentKey{size: n}
	h.Sum(k.sum[:0])
	return k, nil
}

// keyWriter computes the content key of what is written through it.
type keyWriter struct {
	h hash.Hash
	n int64
}

func (k *keyWriter) Write(p []byte) (int, error) {
	k.n += int64(len(p))
	return k.h.Write(p)
}

func (k *keyWriter) key() contentKey {
	c := contentKey{size: k.n}
	k.h.Sum(c.sum[:0])
	return c
}

// AddFS adds every regular file of fsys as an object named by its path,
// walking in lexical order (fs.WalkDir), like zip.Writer.AddFS. Directories
// are implied by the names; other file types are an error. Files with the
// same bytes are stored once: their objects share the bytes of the first
// (files whose size no other file has are read once, the others twice).
func (w *Writer) AddFS(fsys fs.FS) error {
	files, err := listTree(fsys, ".")
	if err != nil {
		return err
	}
	copyOf, keys, err := findCopies(fsys, files)
	if err != nil {
		return err
	}
	entry := map[int]int{} // file with copies -> its table entry, once stored as found
	for i, f := range files {
		if j, ok := copyOf[i]; ok {
			if e, ok := entry[j]; ok {
				if err := w.link(f.name, e); err != nil {
					return err
				}
				if w.cfg.addProgress != nil {
					w.cfg.addProgress(f.name, f.size)
				}
				continue
			}
		}
		var kw *keyWriter
		var to []io.Writer
		if _, ok := keys[i]; ok {
			kw = &keyWriter{h: sha256.New()}
			to = append(to, kw)
		}
		if w.cfg.addProgress != nil {
			to = append(to, progressWriter{f.name, w.cfg.addProgress})
		}
		if err := copyFile(fsys, f, w.CreateSized, to...); err != nil {
			return err
		}
		if err := w.finishObject(); err != nil {
			return err
		}
		if kw != nil && kw.key() == keys[i] {
			entry[i] = len(w.table)/ObjectEntrySize - 1
		}
	}
	return nil
}

// link adds an object named name that shares the bytes of table entry e.
func (w *Writer) link(name string, e int) error {
	if err := w.finishObject(); err != nil {
		return err
	}
	off, err := w.addName("AddFS", name)
	if err != nil {
		return err
	}
	src := w.table[e*ObjectEntrySize : (e+1)*ObjectEntrySize]
	w.table = append(w.table, src...)
	binary.LittleEndian.PutUint32(w.table[len(w.table)-ObjectEntrySize+8:], off)
	return nil
}

// progressWriter reports the bytes written through it to f.
type progressWriter struct {
	name string
	f    func(name string, n int64)
}

func (p progressWriter) Write(b []byte) (int, error) {
	p.f(p.name, int64(len(b)))
	return len(b), nil
}
