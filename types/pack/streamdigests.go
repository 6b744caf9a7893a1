package pack

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"sync"

	"github.com/gobpx/bpx"
)

// SectionStreamDigests is the type of the section that lets a large
// stored object be read in part: a game streaming music, or seeking in a
// video, reads and checks the 64 KiB chunks it asks for instead of the
// whole object. For every object it lists, the section holds the CRC-32C
// of each 64 KiB chunk of the object's bytes. The Writer lists the
// objects it stores raw of StreamDigestsMin bytes or more; the Editor
// keeps the entries of the objects it keeps and lists the ones it adds.
// It lies after the object digests and the times, before the data. Other
// readers, the reference SDK among them, pass over it.
//
// Layout, little-endian:
//
//	offset size
//	0      1     version: 1 = CRC-32C (Castagnoli) of each chunk
//	1      1     log2 of the chunk size: 16 (64 KiB), from 12 to 24
//	2      2     reserved, 0
//	4      4     number of entries m
//	8      12·m  the entries, in ascending order of (digest, size), no two
//	             alike: the object's CRC-32C as SectionDigests holds it
//	             (4 bytes) and its size (8 bytes, at least 1)
//	8+12·m       for each entry in that order, the CRC-32C of each chunk of
//	             the object, ceil(size/chunk) of them, the last chunk
//	             possibly shorter: 4 bytes each
//
// An entry names the bytes it describes by their digest and size, not by
// an object's index or place: it holds for every object of that content
// (files stored once for several names, objects a tool moved or
// renumbered), and for no other. A reader uses an entry only for an
// object whose digest (SectionDigests, or its path index entry) and size
// are the entry's, and only when the section is stored raw and its
// checksum holds; else it reads the object as a package without the
// section reads it (see Verification in the package documentation).
//
// What checks it: every chunk a read returns is compared with its
// CRC-32C before any of its bytes is handed out, so a list that lies
// makes reads fail, never return other bytes; VerifyAll compares every
// entry with the bytes of the objects it describes, which are also
// checked against their object digests, and reports any disagreement.
// A package whose objects hold 600 MB, 4.5 MB of them in files of 256 KiB
// or more, carries about 8 bytes a stored 64 KiB: 0.006% of the data.
const SectionStreamDigests = 0xF5

// StreamDigestsMin is the size from which the Writer lists an object it
// stores raw in SectionStreamDigests: smaller objects are read whole.
const StreamDigestsMin = 256 << 10

const (
	streamDigestVersion  = 1
	streamChunkLog       = 16 // the Writer's chunks: 64 KiB
	streamMinLog         = 12
	streamMaxLog         = 24
	streamHeaderSize     = 8
	streamEntrySize      = 12
	streamDigestSize     = 4
	streamChunkSizeWrite = 1 << streamChunkLog
)

// streamKey is what an entry of SectionStreamDigests describes: bytes of
// that CRC-32C and size.
type streamKey struct {
	sum  uint32
	size uint64
}

func (a streamKey) cmp(b streamKey) int {
	switch {
	case a.sum != b.sum:
		if a.sum < b.sum {
			return -1
		}
		return 1
	case a.size != b.size:
		if a.size < b.size {
			return -1
		}
		return 1
	}
	return 0
}

// chunkCount returns the number of chunks of 1<<log bytes of size bytes.
func chunkCount(size uint64, log uint8) uint64 {
	return size>>log + min(1, size&(1<<log-1))
}

// streamSums collects the chunk digests of the objects a Writer lists.
type streamSums struct {
	keys []streamKey
	sums [][]uint32
}

// add lists bytes of key k, whose chunk digests are sums.
func (s *streamSums) add(k streamKey, sums []uint32) {
	s.keys = append(s.keys, k)
	s.sums = append(s.sums, sums)
}

// marshal returns the SectionStreamDigests bytes of the entries, sorted,
// or nil if there are none. Two entries of the same key with different
// digests (two contents alike in CRC-32C and size) are both left out:
// neither would describe the other's bytes.
func (s *streamSums) marshal() []byte {
	order := make([]int, len(s.keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.keys[order[a]].cmp(s.keys[order[b]]) < 0 })
	var keep []int
	for i := 0; i < len(order); {
		j, clash := i+1, false
		for ; j < len(order) && s.keys[order[j]] == s.keys[order[i]]; j++ {
			clash = clash || !slices.Equal(s.sums[order[j]], s.sums[order[i]])
		}
		if !clash {
			keep = append(keep, order[i])
		}
		i = j
	}
	if len(keep) == 0 {
		return nil
	}
	b := make([]byte, streamHeaderSize, streamHeaderSize+streamEntrySize*len(keep))
	b[0], b[1] = streamDigestVersion, streamChunkLog
	binary.LittleEndian.PutUint32(b[4:], uint32(len(keep)))
	for _, i := range keep {
		b = binary.LittleEndian.AppendUint32(b, s.keys[i].sum)
		b = binary.LittleEndian.AppendUint64(b, s.keys[i].size)
	}
	for _, i := range keep {
		for _, d := range s.sums[i] {
			b = binary.LittleEndian.AppendUint32(b, d)
		}
	}
	return b
}

// streamList is a parsed SectionStreamDigests, read in place.
type streamList struct {
	log   uint8
	keys  []byte   // the entries
	first []uint32 // the index of each entry's first chunk digest
	sums  []byte   // the chunk digests
}

// parseStreamDigests checks SectionStreamDigests bytes b and returns the
// list, or why it cannot be used. It keeps b; what it allocates (4 bytes
// an entry) is bounded by len(b).
func parseStreamDigests(b []byte) (*streamList, error) {
	if len(b) < streamHeaderSize {
		return nil, fmt.Errorf("%d bytes, shorter than the header", len(b))
	}
	if b[0] != streamDigestVersion || b[2]|b[3] != 0 {
		return nil, fmt.Errorf("version %d, reserved %x: unknown", b[0], b[2:4])
	}
	log := b[1]
	if log < streamMinLog || log > streamMaxLog {
		return nil, fmt.Errorf("chunks of 2^%d bytes, outside 2^%d to 2^%d", log, streamMinLog, streamMaxLog)
	}
	m := uint64(binary.LittleEndian.Uint32(b[4:]))
	rest := uint64(len(b) - streamHeaderSize)
	if m*streamEntrySize > rest {
		return nil, fmt.Errorf("%d entries in %d bytes", m, rest)
	}
	l := &streamList{log: log, keys: b[streamHeaderSize : streamHeaderSize+m*streamEntrySize], first: make([]uint32, m)}
	room := (rest - m*streamEntrySize) / streamDigestSize // chunk digests the bytes hold
	var n uint64
	var prev streamKey
	for i := range l.first {
		k := l.key(i)
		if k.size == 0 {
			return nil, fmt.Errorf("entry %d: size 0", i)
		}
		if i > 0 && prev.cmp(k) >= 0 {
			return nil, fmt.Errorf("entry %d (digest %#08x, %d bytes) not after the one before it", i, k.sum, k.size)
		}
		prev = k
		c := chunkCount(k.size, log)
		if c > room-n {
			return nil, fmt.Errorf("entry %d: %d bytes need %d chunk digests, %d are left", i, k.size, c, room-n)
		}
		l.first[i] = uint32(n)
		n += c
	}
	if n != room || (rest-m*streamEntrySize)%streamDigestSize != 0 {
		return nil, fmt.Errorf("%d bytes of chunk digests, the entries need %d", rest-m*streamEntrySize, n*streamDigestSize)
	}
	l.sums = b[streamHeaderSize+m*streamEntrySize:]
	return l, nil
}

// key returns entry i's key.
func (l *streamList) key(i int) streamKey {
	e := l.keys[i*streamEntrySize:]
	return streamKey{sum: binary.LittleEndian.Uint32(e), size: binary.LittleEndian.Uint64(e[4:])}
}

// lookup returns the chunk digests of bytes of key k, in place, or nil.
func (l *streamList) lookup(k streamKey) []byte {
	if l == nil {
		return nil
	}
	i := sort.Search(len(l.first), func(i int) bool { return l.key(i).cmp(k) >= 0 })
	if i == len(l.first) || l.key(i) != k {
		return nil
	}
	n := chunkCount(k.size, l.log)
	return l.sums[uint64(l.first[i])*streamDigestSize:][:n*streamDigestSize]
}

// streamDigestState is what a Package knows of SectionStreamDigests,
// loaded at the first read that can use it.
type streamDigestState struct {
	once sync.Once
	list *streamList // nil: none usable
}

// streamList returns the package's usable SectionStreamDigests, or nil: a
// missing one, one stored compressed or damaged, or one that does not
// parse is not used.
func (p *Package) streamList() *streamList {
	p.sdig.once.Do(func() {
		s := p.Reader.FindSection(SectionStreamDigests)
		if p.Revision != 2 || s == nil || s.Compressed() {
			return
		}
		b, err := s.Data()
		if err != nil {
			return
		}
		p.sdig.list, _ = parseStreamDigests(b)
	})
	return p.sdig.list
}

// chunker computes the chunk digests of an object as its bytes are
// written: the Writer's for objects it may list.
type chunker struct {
	sums []uint32
	cur  uint32
	n    int // bytes in the current chunk
}

// write adds p, the object's next bytes.
func (c *chunker) write(p []byte) {
	for len(p) > 0 {
		k := min(len(p), streamChunkSizeWrite-c.n)
		c.cur = crc32.Update(c.cur, castagnoli, p[:k])
		c.n += k
		p = p[k:]
		if c.n == streamChunkSizeWrite {
			c.sums = append(c.sums, c.cur)
			c.cur, c.n = 0, 0
		}
	}
}

// finish returns the digests of every chunk, and resets c.
func (c *chunker) finish() []uint32 {
	if c.n > 0 {
		c.sums = append(c.sums, c.cur)
	}
	s := c.sums
	*c = chunker{}
	return s
}

// streamDigestOptions are the options SectionStreamDigests is written with:
// stored raw, so that reading it allocates no more than its stored size.
var streamDigestOptions = bpx.SectionOptions{Checksum: bpx.ChecksumWeak}

// verifyStreamDigests checks SectionStreamDigests s: its checksum, and
// that it is stored raw and parses, as a reader needs to use it (one that
// does not is passed over by readers, and reported here).
func verifyStreamDigests(s *bpx.Section) error {
	if err := s.Verify(); err != nil {
		return err
	}
	if s.Compressed() {
		return fmt.Errorf("pack: stream digests (section %d): stored compressed (flags %#x), readers pass over it: %w", s.Index, s.Flags, bpx.ErrFormat)
	}
	b, err := s.Data()
	if err != nil {
		return err
	}
	if _, err := parseStreamDigests(b); err != nil {
		return fmt.Errorf("pack: stream digests (section %d): %v, readers pass over it: %w", s.Index, err, bpx.ErrFormat)
	}
	return nil
}
