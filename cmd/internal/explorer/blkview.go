package explorer

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
)

// What a BLK preview takes per byte of its file at most, so that a
// decoded tree and its answer stay within MaxPreviewBytes: a binary tree
// takes up to 64 bytes per decoded byte (package blk says about 40;
// TestPreviewCostFactors measures 44 for empty blocks), a text one up to
// 320 bytes per byte of text while it is built (see package blk; a BPX
// container's BPXSD object takes sdFactor); the answer, text or JSON,
// may take as much as the tree (blkAnswerFactor): a tree whose answer
// could take more (names in a name map are shared by the tree, written
// once per use) is refused with ErrTooLarge before it is written (see
// blkAnswerBound).
const (
	blkBinaryFactor = 64
	blkTextFactor   = 320
	blkAnswerFactor = 2 // the tree, then its answer of at most as many bytes
	maxBLKBinary    = MaxPreviewBytes / blkBinaryFactor / blkAnswerFactor
	maxBLKText      = MaxPreviewBytes / blkTextFactor / blkAnswerFactor
)

// isBinaryBLK reports whether head starts like a binary BLK file whatever
// its name: the BBF3 magic, or a zstd frame where kinds 2, 4 and 5 put one.
func isBinaryBLK(head []byte) bool {
	zstd := []byte{0x28, 0xB5, 0x2F, 0xFD}
	switch {
	case bytes.HasPrefix(head, []byte("\x00BBF")), bytes.HasPrefix(head, []byte("\x00BBz")):
		return true
	case len(head) >= 8 && head[0] == byte(blk.KindFATZstd):
		return bytes.Equal(head[4:8], zstd)
	case len(head) >= 5 && (head[0] == byte(blk.KindSlimZstd) || head[0] == byte(blk.KindSlimZstdDict)):
		return bytes.Equal(head[1:5], zstd)
	}
	return false
}

// handleBLK answers /api/blk: a BLK file as engine text (as=text) or as
// the JSON of wt_blk (as=json).
func (s *Server) handleBLK(w http.ResponseWriter, r *http.Request) {
	as := r.URL.Query().Get("as")
	if as != "text" && as != "json" {
		fail(w, badRequestf("as wants text or json, got %q", as))
		return
	}
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	b, g, err := s.decodeBLK(r, sub)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	// The answer may take what the tree took: g's share of the budget.
	// blk's writers build it whole before they write it, and the buffer
	// copies it: three times its size, which its bound, taken from the
	// tree before it is built, must leave within that share (a name
	// shared by the tree is written once per use, so a small file can
	// make a large answer).
	room := g.n / blkAnswerFactor
	if n := blkAnswerBound(b, 0, room/3); n > room/3 {
		g.release()
		failRequest(w, r, fmt.Errorf("%s: its %s may take more than %d bytes, a third of its share of the preview limit (%d): %w",
			sub.name, as, room/3, room, bpx.ErrTooLarge))
		return
	}
	buf := &cappedBuffer{max: int(room), name: sub.name}
	ct := "text/plain; charset=utf-8"
	if as == "text" {
		err = blk.WriteText(buf, b)
	} else {
		ct = "application/json; charset=utf-8"
		err = blk.WriteJSON(buf, b)
	}
	if err != nil {
		g.release()
		failRequest(w, r, fmt.Errorf("%s: %w", sub.name, err))
		return
	}
	send(w, g, ct, buf.b)
}

// cappedBuffer is a buffer of at most max bytes: a write beyond fails
// with an error matching bpx.ErrTooLarge.
type cappedBuffer struct {
	b    []byte
	max  int
	name string
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if len(p) > c.max-len(c.b) {
		return 0, fmt.Errorf("the answer for %s is above the preview limit of %d bytes: %w", c.name, c.max, bpx.ErrTooLarge)
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

// blkAnswerBound bounds the bytes of b, a block at nesting level, as
// engine text or as JSON: every name and string escaped at 6 bytes a
// byte, a number 32 bytes, an array 24 lines (a matrix takes 21 in JSON)
// of 32 bytes and their indentation, and each line's indentation and
// punctuation. It stops adding once the bound passes limit.
func blkAnswerBound(b *blk.Block, level int, limit int64) int64 {
	indent := int64(2*level + 2)
	n := 2*indent + 6*int64(len(b.Name)) + 16
	for i := range b.Params {
		if n > limit {
			return n
		}
		p := &b.Params[i]
		n += indent + 6*int64(len(p.Name)) + 16
		switch p.Value.Type() {
		case blk.TypeString:
			n += 6*int64(len(p.Value.Str())) + 2
		case blk.TypeBool, blk.TypeInt, blk.TypeInt64, blk.TypeReal:
			n += 32
		default: // an array: a matrix is 4 of 3, 21 lines in JSON
			n += 24 * (indent + 6 + 32)
		}
	}
	for _, c := range b.Blocks {
		if n > limit {
			return n
		}
		n += blkAnswerBound(c, level+1, limit-n)
	}
	return n
}

// checkBLK decodes sub as a BLK file.
func (s *Server) checkBLK(r *http.Request, sub *subject) error {
	_, g, err := s.decodeBLK(r, sub)
	if err == nil {
		g.release()
	}
	return err
}

// decodeBLK decodes sub: a BPX container of type 'D', binary BLK of any
// kind (SLIM kinds with the name map "nm" of the same directory and the
// dictionary it names beside it), the typed JSON of package blk, or text.
// It decodes under a grant of the preview budget for the tree and its
// answer, which the caller releases.
func (s *Server) decodeBLK(r *http.Request, sub *subject) (*blk.Block, *grant, error) {
	var cost int64
	if sub.rd != nil {
		if sub.rd.Header.Type != blk.BPXType {
			return nil, nil, badRequestf("%s: not a BLK container (type %q)", sub.name, sub.rd.Header.Type)
		}
		if sec := sub.rd.FindSection(bpx.SectionTypeStructuredData); sec != nil {
			if sec.USize > maxSD/blkAnswerFactor {
				return nil, nil, fmt.Errorf("%s: section %d: %d bytes, above the preview limit of %d for structured data: %w", sub.name, sec.Index, sec.USize, maxSD/blkAnswerFactor, bpx.ErrTooLarge)
			}
			cost = sdFactor * int64(sec.USize) * blkAnswerFactor
		}
	}
	limit := int64(maxBLKBinary)
	if sub.rd == nil {
		head, err := sub.head(sniffSize)
		if err != nil {
			return nil, nil, err
		}
		factor, decoded := int64(blkBinaryFactor), sub.size
		switch {
		case len(head) > 0 && head[0] > byte(blk.KindSlimZstdDict):
			limit, factor = maxBLKText, blkTextFactor
		case len(head) > 0 && head[0] == byte(blk.KindSlim):
			decoded = sub.size + maxBLKBinary/blkBinaryFactor // and the name map's names
		case bytes.HasPrefix(head, []byte("\x00BBF")), len(head) > 0 && head[0] == byte(blk.KindFAT):
		default: // compressed: it decodes to maxBLKBinary at most
			decoded = 2 * maxBLKBinary
		}
		if sub.size > limit {
			return nil, nil, fmt.Errorf("%s: %d bytes, above the preview limit of %d for this kind: %w", sub.name, sub.size, limit, bpx.ErrTooLarge)
		}
		cost = min(factor*decoded*blkAnswerFactor, MaxPreviewBytes)
	}
	g, err := s.acquire(r, sub.name, cost)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.readBLK(sub, limit)
	if err != nil {
		g.release()
		return nil, nil, err
	}
	return b, g, nil
}

// readBLK decodes the BLK file sub, of at most limit bytes when it is
// no BPX container.
func (s *Server) readBLK(sub *subject, limit int64) (*blk.Block, error) {
	if sub.rd != nil {
		b, err := blk.ReadBPX(sub.ra, sub.size)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sub.name, err)
		}
		return b, nil
	}
	data, err := sub.readAll(limit)
	if err != nil {
		return nil, err
	}
	b, err := s.parseBLK(sub, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	return b, nil
}

// parseBLK decodes the bytes of a BLK file that is no BPX container.
func (s *Server) parseBLK(sub *subject, data []byte) (*blk.Block, error) {
	if len(data) > 0 && data[0] <= byte(blk.KindSlimZstdDict) {
		opts := []blk.Option{blk.WithMaxSize(maxBLKBinary)}
		if kind := blk.Kind(data[0]); kind.Slim() {
			more, err := s.blkNameMap(sub, kind)
			if err != nil {
				return nil, err
			}
			opts = append(opts, more...)
		}
		d, err := blk.NewDecoder(opts...)
		if err != nil {
			return nil, err
		}
		return d.Decode(data)
	}
	if t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n"); len(t) > 0 && t[0] == '{' {
		if b, err := blk.ParseTypedJSON(data); err == nil {
			return b, nil
		}
	}
	return blk.ParseText(data)
}

// blkNameMap returns the options that decode a SLIM kind of BLK: the name
// map "nm" in the directory of sub and, for SLIM_ZST_DICT, the dictionary
// it names beside it.
func (s *Server) blkNameMap(sub *subject, kind blk.Kind) ([]blk.Option, error) {
	if sub.path == "" {
		return nil, fmt.Errorf("%w to decode %v (no directory to find \"nm\" in)", blk.ErrNameMapRequired, kind)
	}
	dir := path.Dir(sub.path)
	data, err := s.readTreeFile(path.Join(dir, "nm"), maxBLKBinary)
	if err != nil {
		return nil, fmt.Errorf("%w to decode %v: %w", blk.ErrNameMapRequired, kind, err)
	}
	nm, err := blk.ParseNameMap(data)
	if err != nil {
		return nil, fmt.Errorf("name map %s: %w", path.Join(dir, "nm"), err)
	}
	opts := []blk.Option{blk.WithNameMap(nm)}
	if kind == blk.KindSlimZstdDict {
		dict, err := s.readTreeFile(path.Join(dir, nm.DictFileName()), maxBLKBinary)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", blk.ErrDictRequired, err)
		}
		opts = append(opts, blk.WithDicts(dict))
	}
	return opts, nil
}

// readTreeFile reads a file of the tree of at most limit bytes.
func (s *Server) readTreeFile(p string, limit int64) ([]byte, error) {
	f, err := s.tree.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errIsDir}
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, above the limit of %d: %w", p, fi.Size(), limit, bpx.ErrTooLarge)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
