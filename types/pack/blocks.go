package pack

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"unsafe"

	"github.com/gobpx/bpx"
)

// Sections larger than the block size (WithBlockSize) are written as xz
// streams of blocks that decode on their own (bpx.Block). An object of
// such a section that is read by itself (objectEntry: one section, a
// digest, at most a quarter of the cache) decodes only the blocks that
// hold it, each as far as the object's end and kept in the cache as a
// small section would be (decoded in steps), so that the next object of
// the same block continues its decoder; its bytes are checked
// against its digest before any is returned, as every object read by
// itself is.

// blockKey is the cache key of block b of section sec.
func blockKey(sec, b int) cacheKey { return cacheKey{kind: keyBlock, sec: sec, n: int64(b)} }

// sectionBlocks returns the blocks of section sec, or nil when it has none,
// its index cannot be read or does not match the blocks (see
// bpx.Section.BlocksUpTo; the section is then decoded from its start,
// which reports what is wrong with it), a block is larger than a quarter
// of the cache (then streamed, in memory bounded by the dictionary, as a
// section too large for the cache is), or the map would take more than a
// quarter of the cache. The answer is kept in the cache, the map counted
// in its budget: every read of the section asks.
func (p *Package) sectionBlocks(sec int) []bpx.Block {
	load := func(buf []byte) ([]byte, any, int64, error) {
		limit := int(min(p.cache.maxEntry()/blockMapEntrySize, math.MaxInt32))
		blocks, err := p.Reader.Sections[sec].BlocksUpTo(limit)
		for _, b := range blocks {
			if b.Size > p.cache.maxEntry() {
				err = errTooLarge
				break
			}
		}
		if err != nil {
			blocks = nil
		}
		return nil, blocks, int64(cap(blocks)) * blockMapEntrySize, nil
	}
	e, err := p.cache.getValue(cacheKey{kind: keyBlockMap, sec: sec}, 0, load, false)
	if err != nil {
		return nil
	}
	blocks := e.val.([]bpx.Block)
	p.cache.release(e) // the slice stays valid; the cache only forgets it
	return blocks
}

// blockMapEntrySize is what a block of a map costs in the cache's budget.
const blockMapEntrySize = int64(unsafe.Sizeof(bpx.Block{}))

// errTooLarge marks, in sectionBlocks, a block larger than the cache takes.
var errTooLarge = errors.New("block larger than a quarter of the cache")

// readBlocks fills buf with the decoded data of section s from offset off,
// decoding the blocks that hold it (each at most a quarter of the cache:
// see sectionBlocks). The bytes are not checked here: the caller checks
// the object they make up against its digest, or the signature checked
// every stored byte the decoders read.
func (p *Package) readBlocks(s *bpx.Section, blocks []bpx.Block, buf []byte, off uint64) error {
	i := sort.Search(len(blocks), func(i int) bool { return uint64(blocks[i].Offset+blocks[i].Size) > off })
	for len(buf) > 0 {
		if i == len(blocks) || uint64(blocks[i].Offset) > off {
			return &bpx.FormatError{Offset: int64(off), Section: s.Index, What: "section's blocks end before the object does", Err: io.ErrUnexpectedEOF}
		}
		b := blocks[i]
		at := off - uint64(b.Offset)
		need := int64(at) + int64(len(buf)) // decoded only that far, as a section is
		e, data, err := p.cache.getPartial(blockKey(s.Index, b.Index), b.Size, min(need, b.Size),
			func(dst []byte) (*bpx.Partial, error) { return s.OpenBlock(dst, b) }, false)
		if err != nil {
			return err
		}
		if int64(len(data)) < min(need, b.Size) {
			p.cache.release(e)
			return fmt.Errorf("pack: section %d: block %d decoded to %d bytes, fewer than the %d the object needs", s.Index, b.Index, len(data), min(need, b.Size))
		}
		k := copy(buf, data[at:])
		p.cache.release(e)
		buf, off = buf[k:], off+uint64(k)
		i++
	}
	return nil
}
