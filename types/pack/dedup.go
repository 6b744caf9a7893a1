package pack

import (
	"bytes"
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

// dedupBuffer is the largest file AddFS holds in memory while it checks
// whether an earlier file had the same bytes; larger ones are read twice.
var dedupBuffer int64 = 1 << 20

// AddFS adds every regular file of fsys as an object named by its path,
// walking in lexical order (fs.WalkDir), like zip.Writer.AddFS. Directories
// are implied by the names; other file types are an error. Files with the
// same bytes are stored once: their objects share the bytes of the first.
// Each file is read once, but for a file larger than 1 MiB whose size an
// earlier file has, which is read twice (once to hash it).
func (w *Writer) AddFS(fsys fs.FS) error {
	files, err := listTree(fsys, ".")
	if err != nil {
		return err
	}
	sizes := make(map[int64]int, len(files))
	for _, f := range files {
		if f.size > 0 {
			sizes[f.size]++
		}
	}
	stored := map[contentKey]int{} // content -> its table entry
	seen := map[int64]bool{}       // sizes of files stored so far
	var buf bytes.Buffer
	for _, f := range files {
		if f.size == 0 || sizes[f.size] < 2 {
			if err := w.addFile(fsys, f, nil, nil); err != nil {
				return err
			}
			continue
		}
		// A size that another file has: find the content's key, then
		// link to an earlier copy or store the file.
		kw := &keyWriter{h: sha256.New()}
		var data []byte
		if seen[f.size] {
			var err error
			if data, err = readKeyed(fsys, f, kw, &buf); err != nil {
				return err
			}
			if e, ok := stored[kw.key()]; ok {
				if err := w.link(f.name, e); err != nil {
					return err
				}
				w.progress(f.name, f.size)
				continue
			}
			if data == nil {
				// Read again to store it: know it by what is stored.
				kw = &keyWriter{h: sha256.New()}
			}
		}
		if err := w.addFile(fsys, f, data, kw); err != nil {
			return err
		}
		if kw.n == f.size {
			stored[kw.key()] = len(w.table)/ObjectEntrySize - 1
		}
		seen[f.size] = true
	}
	return nil
}

// readKeyed hashes the file f of fsys into kw and returns its bytes, read
// into buf, if it is at most dedupBuffer bytes long (else nil).
func readKeyed(fsys fs.FS, f treeFile, kw *keyWriter, buf *bytes.Buffer) ([]byte, error) {
	r, err := fsys.Open(f.name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if f.size > dedupBuffer {
		_, err := io.Copy(kw, r)
		return nil, err
	}
	buf.Reset()
	if _, err := io.Copy(buf, r); err != nil {
		return nil, err
	}
	kw.Write(buf.Bytes())
	return buf.Bytes(), nil
}

// addFile stores the file f of fsys, from data if not nil (else read from
// fsys), hashing what it reads from fsys into kw if not nil.
func (w *Writer) addFile(fsys fs.FS, f treeFile, data []byte, kw *keyWriter) error {
	var also []io.Writer
	if kw != nil && data == nil {
		also = append(also, kw)
	}
	if w.cfg.addProgress != nil {
		also = append(also, progressWriter{f.name, w.cfg.addProgress})
	}
	if data == nil {
		if err := copyFile(fsys, f, w.CreateSized, also...); err != nil {
			return err
		}
		return w.finishObject()
	}
	ow, err := w.CreateSized(f.name, int64(len(data)))
	if err != nil {
		return err
	}
	for _, to := range append([]io.Writer{ow}, also...) {
		if _, err := to.Write(data); err != nil {
			return err
		}
	}
	return w.finishObject()
}

// progress reports n bytes of the file name to WithAddProgress's function.
func (w *Writer) progress(name string, n int64) {
	if w.cfg.addProgress != nil {
		w.cfg.addProgress(name, n)
	}
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
