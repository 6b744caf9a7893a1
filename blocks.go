package bpx

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/gobpx/bpx/internal/xzdec"
)

// Block is one part of a section's data that decodes on its own. An xz
// section written with SectionOptions.BlockSize is a stream of blocks that
// each start with an empty dictionary: a reader that wants bytes far into
// the section decodes only the block that holds them, found through the
// stream's index at the end of the stored bytes. Every .xz decoder, the
// reference SDK's among them, still reads such a section whole.
type Block struct {
	Index  int   // its position among the section's blocks
	Offset int64 // where its data starts in the section's decoded data
	Size   int64 // how much decoded data it holds

	xb    xzdec.Block
	flags [2]byte
}

// blockDecoder is AppendBlock's decoder and buffer of stored bytes, kept
// for the next block: fresh memory is slow to fault in.
type blockDecoder struct {
	dec xzdec.Decoder
	in  []byte
}

// blockDecoders keeps idle block decoders; put drops stored buffers above
// maxPooledBlock.
var blockDecoders = newFreeList(2*runtime.GOMAXPROCS(0), func() *blockDecoder { return new(blockDecoder) })

// maxPooledBlock is the largest buffer of stored bytes kept with an idle
// block decoder.
const maxPooledBlock = 4 << 20

// put drops the caller's buffers and returns bd to blockDecoders.
func (bd *blockDecoder) put() {
	bd.dec.Start(nil, nil, 0)
	if cap(bd.in) > maxPooledBlock {
		bd.in = nil
	}
	blockDecoders.put(bd)
}

// DefaultMaxBlocks is the most blocks Blocks maps: 4 MiB of map (a 64 GiB
// section of 1 MiB blocks). BlocksUpTo takes another bound.
const DefaultMaxBlocks = 1 << 16

// blockRecordSize is a bound on the bytes of an xz index record (two
// varints of up to 9 bytes): an index larger than a map of n blocks needs
// is not read.
const blockRecordSize = 18

// Blocks returns the blocks of an xz section of more than one block, in
// order, as BlocksUpTo(DefaultMaxBlocks) does.
func (s *Section) Blocks() ([]Block, error) { return s.BlocksUpTo(DefaultMaxBlocks) }

// BlocksUpTo returns the blocks of an xz section of more than one block,
// in order, from the index at the end of its stored bytes. It returns nil
// for any other section (raw, zlib, an xz stream of one block, several
// streams, blocks of more than 1 GiB) and for one of more than maxBlocks
// blocks: such a section decodes from its start. The map is not kept:
// each call reads it again, so the caller keeps it (a Package keeps it in
// its cache, counted in its budget).
//
// The map is a second account of the section's data beside the stream
// itself, and is checked against the stream before it is returned: the
// index's CRC32, that the blocks and it fill the stored bytes exactly,
// that the blocks' sizes add up to the section's USize, and, for every
// block, its header and the sizes its LZMA2 chunk headers state
// (xzdec.CheckBlock): a reader decoding one block finds its data at the
// offset the whole stream has it at, or none. A failure is an ErrFormat
// error naming the block. Each block's own data and check are checked
// when AppendBlock decodes it. Cost: the index (at most 18 bytes a block
// are read) and, per block, its header and 6 bytes per LZMA2 chunk of up
// to 64 KiB of stored bytes, read in place (over HTTP, through the remote
// reader's cache, which then holds the stored section). Memory: about 80
// bytes per block, and blocks take at least 12 stored bytes each.
func (s *Section) BlocksUpTo(maxBlocks int) ([]Block, error) {
	if s.Flags&FlagXZ == 0 || s.Flags&FlagZstd != 0 || s.rd.v0 {
		return nil, nil
	}
	off, n, err := s.storedRange()
	if err != nil {
		return nil, err
	}
	bad := func(at int64, what string, err error) error {
		return &FormatError{Offset: at, Section: s.Index, What: what, Err: err}
	}
	if n < 12+xzdec.FooterSize+8 {
		return nil, bad(off, "xz stream too short for an index", nil)
	}
	var foot [xzdec.FooterSize]byte
	fat := off + n - xzdec.FooterSize
	if _, err := s.rd.r.ReadAt(foot[:], fat); err != nil {
		return nil, err
	}
	size, flags, err := xzdec.ParseFooter(foot[:])
	if err != nil || size > n-12-xzdec.FooterSize {
		return nil, bad(fat, "invalid xz stream footer", err)
	}
	if size > 16+int64(maxBlocks)*blockRecordSize {
		return nil, nil // more records than maxBlocks
	}
	idx := make([]byte, size)
	if _, err := s.rd.r.ReadAt(idx, fat-size); err != nil {
		return nil, err
	}
	xbs, streamSize, err := xzdec.ParseIndex(idx, flags, n, maxBlocks)
	if err == xzdec.ErrTooManyBlocks {
		return nil, nil
	}
	if err != nil {
		return nil, bad(fat-size, "invalid xz stream index", err)
	}
	if streamSize < n || len(xbs) < 2 {
		// Other streams (or stream padding) come first, or one block:
		// no map of the section's data, which decodes from its start.
		return nil, nil
	}
	var total int64
	for _, b := range xbs {
		total += b.Size
	}
	if want, known := s.DecodedSize(); known && total != want {
		return nil, bad(fat-size, fmt.Sprintf("xz index holds %d bytes, the section %d", total, want), nil)
	}
	for _, b := range xbs {
		if b.Size > maxBlockSize || b.Stored > flatXZStoredLimit(b.Size) {
			// Larger than this package writes, or more stored bytes than
			// any encoder makes of its data (AppendBlock reads them all
			// at once): decoded whole, such a block would hold more
			// memory than a streaming decoder does (and more than a
			// 32-bit int counts).
			return nil, nil
		}
	}
	stream := io.NewSectionReader(s.rd.r, off, n)
	blocks := make([]Block, len(xbs))
	for i, b := range xbs {
		if err := xzdec.CheckBlock(stream, flags, b); err != nil {
			if errors.Is(err, xzdec.ErrUnsupported) {
				return nil, nil // filters of others: decoded from the start
			}
			if !errors.Is(err, xzdec.ErrCorrupt) {
				return nil, err // the file could not be read
			}
			return nil, bad(off+b.Offset, fmt.Sprintf("xz block %d does not match the stream's index (data %d to %d)", i, b.Start, b.Start+b.Size), nil)
		}
		blocks[i] = Block{Index: i, Offset: b.Start, Size: b.Size, xb: b, flags: flags}
	}
	return blocks, nil
}

// AppendBlock appends the decoded data of b, one of s's Blocks, to dst,
// reading and decoding that block only. The block is checked as far as
// its stream can check it: its header's CRC32, its sizes against the
// index, and its own check, if it has one. Streams this package writes
// have none (the section's checksum covers its whole data), so a caller
// that returns a block's bytes must verify them otherwise: a package
// checks each object against its digest. dst grows with the bytes
// decoded, never to b.Size at once.
func (s *Section) AppendBlock(dst []byte, b Block) ([]byte, error) {
	p, err := s.OpenBlock(dst[len(dst):], b)
	if err != nil {
		return dst, err
	}
	defer p.Close()
	out, err := p.DecodeTo(b.Size)
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil // out is dst's tail unless it outgrew dst
}

// OpenBlock starts decoding block b of s onto buf[:0] in steps, as
// OpenPartial does a section: DecodeTo(n) decodes the block's data until
// at least n bytes of it are out. It reads the block's stored bytes at
// once. For a block, Verified reports that the whole block was decoded and
// passed every check its stream has: the section's checksum, which covers
// the whole section, is not among them (see AppendBlock).
func (s *Section) OpenBlock(buf []byte, b Block) (*Partial, error) {
	off, _, err := s.storedRange()
	if err != nil {
		return nil, err
	}
	bd := blockDecoders.get()
	if int64(cap(bd.in)) < b.xb.Stored {
		bd.in = make([]byte, b.xb.Stored)
	}
	bd.in = bd.in[:b.xb.Stored]
	if _, err := s.rd.r.ReadAt(bd.in, off+b.xb.Offset); err != nil {
		bd.put()
		return nil, err
	}
	bd.dec.MaxDict = s.rd.cfg.maxXZDict
	bd.dec.StartBlock(buf[:0], bd.in, int(b.Size), b.flags, b.xb)
	return &Partial{buf: buf[:0], blk: bd, block: &b, sec: s}, nil
}

// decodeBlockTo is DecodeTo for OpenBlock's Partial.
func (p *Partial) decodeBlockTo(n int64) ([]byte, error) {
	if p.err != nil || p.verified || int64(len(p.buf)) >= n {
		return p.buf, p.err
	}
	b, d := p.block, &p.blk.dec
	out, err := d.DecodeTo(int(min(n, b.Size)))
	if err == nil && n >= b.Size && !d.Done() {
		err = fmt.Errorf("decodes to more than its %d bytes", b.Size)
	}
	if err != nil {
		p.err = &FormatError{Offset: int64(p.sec.Pointer) + b.xb.Offset, Section: p.sec.Index,
			What: fmt.Sprintf("xz block %d (data %d to %d)", b.Index, b.Offset, b.Offset+b.Size), Err: err}
		p.releaseBlock()
		return p.buf, p.err
	}
	p.buf = out
	if d.Done() {
		p.verified = true
		p.releaseBlock()
	}
	return p.buf, nil
}

// releaseBlock returns OpenBlock's decoder to the pool.
func (p *Partial) releaseBlock() {
	if p.blk != nil {
		p.blk.put()
		p.blk = nil
	}
}
