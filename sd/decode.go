package sd

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting depth [Decode] accepts unless
// [WithMaxDecodeDepth] says otherwise, and [Encode] writes unless
// [WithMaxEncodeDepth] does. The root object is at depth 1.
const DefaultMaxDepth = 64

// ReferenceMaxDepth is the max_depth the reference implementation uses for
// package metadata; see [WithContainerBudget].
const ReferenceMaxDepth = 16

// decodeConfig is what DecodeOptions set (see options.go); the zero
// value is the default.
type decodeConfig struct {
	MaxDepth        int // 0: DefaultMaxDepth
	ContainerBudget int // 0: none
	NoDebugNames    bool
	StrictBool      bool
}

// Decode decodes the BPXSD object at the start of data. Bytes after the
// object are ignored: the reference stores package metadata twice in a
// row.
func Decode(data []byte, opts ...DecodeOption) (*Object, error) {
	o, _, err := DecodePrefix(data, opts...)
	return o, err
}

func (opts decodeConfig) decode(data []byte) (*Object, error) {
	o, _, err := opts.decodePrefix(data)
	return o, err
}

// DecodePrefix decodes the object at the start of data and also returns
// the number of bytes it occupies.
//
// Errors are *SyntaxError values naming the offset. Memory use is bounded by
// a small multiple of len(data) (see the package documentation).
func DecodePrefix(data []byte, opts ...DecodeOption) (*Object, int, error) {
	cfg, err := newDecodeConfig(opts)
	if err != nil {
		return nil, 0, err
	}
	return cfg.decodePrefix(data)
}

func (opts decodeConfig) decodePrefix(data []byte) (*Object, int, error) {
	// A first pass checks the data and counts what it holds, so that the
	// second allocates exactly: fewer bytes means less GC work, which
	// dominates the cost of decoding.
	scan, err := opts.scan(data)
	if err != nil {
		return nil, 0, err
	}
	d := newDecoder(data[:scan.pos], opts)
	d.scanned = true
	d.objs.buf = make([]Object, 0, scan.counts.objs)
	d.vals.buf = make([]Value, 0, scan.counts.vals)
	d.keys.buf = make([]uint64, 0, scan.counts.keys)
	d.strs.Grow(scan.counts.strBytes)
	o, err := d.object(1)
	if err != nil {
		return nil, 0, err
	}
	return o, d.pos, nil
}

func newDecoder(data []byte, opts decodeConfig) *decoder {
	d := &decoder{data: data, opts: opts, maxDepth: opts.MaxDepth, budget: opts.ContainerBudget}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	return d
}

// scan checks the object at the start of data as DecodePrefix would,
// without building it. The returned decoder's pos is the object's size and
// its counts say what the object holds.
func (opts decodeConfig) scan(data []byte) (*decoder, error) {
	d := newDecoder(data, opts)
	d.discard = true
	if _, err := d.object(1); err != nil {
		return nil, err
	}
	return d, nil
}

type decoder struct {
	data     []byte
	pos      int
	opts     decodeConfig
	maxDepth int
	budget   int

	// Slabs the decoded containers are carved from, so that a document
	// costs a few allocations instead of three per object.
	objs slab[Object]
	vals slab[Value]
	keys slab[uint64]
	// discard makes the decoder only check the input and count what it
	// holds (see scan).
	discard bool
	counts  struct{ objs, vals, keys, strBytes int }
	// scratch receives the values of a scan.
	scratch Value
	// scanned is set on the build pass after a successful scan of the same
	// bytes: checks the scan made need not be repeated.
	scanned bool
	// strs receives the bytes of all strings; String values are
	// substrings of it (one allocation for all strings).
	strs strings.Builder

	// markDups makes a scan record in dups the offset of every object
	// entry whose key a later entry of the same object repeats, so that
	// Unmarshal, which walks the bytes once more, can skip it: the last
	// value of a key wins on every path. open holds the latest entry of
	// each key of the objects being scanned.
	markDups bool
	open     []openKey
	dups     []int // sorted after the scan
	nextDup  int   // index into dups of the next offset at or after pos
}

// openKey is a key of an object being scanned and the offset of its
// latest entry.
type openKey struct {
	hash uint64
	off  int
}

// slab hands out pieces of one allocation, sized by the scan.
type slab[T any] struct {
	buf []T
}

// take reserves room for n items and returns it as an empty slice of
// capacity n.
func (s *slab[T]) take(n int) []T {
	if cap(s.buf)-len(s.buf) < n { // not after a scan; kept for safety
		s.buf = make([]T, 0, n)
	}
	i := len(s.buf)
	s.buf = s.buf[:i+n]
	return s.buf[i : i : i+n]
}

func (d *decoder) newObject() *Object {
	return &d.objs.take(1)[:1][0]
}

// str returns the input bytes [start, end) as a string.
func (d *decoder) str(start, end int) string {
	if d.discard {
		d.counts.strBytes += end - start
		return ""
	}
	off := d.strs.Len()
	d.strs.Write(d.data[start:end])
	// Earlier results of String stay valid as the Builder grows.
	return d.strs.String()[off:]
}

func (d *decoder) fail(off int, err error, detail string) error {
	return &SyntaxError{Offset: int64(off), Err: err, Detail: detail}
}

// enter accounts for one more container at depth and checks the limits.
func (d *decoder) enter(depth int) error {
	if depth > d.maxDepth {
		return d.fail(d.pos, ErrDepth, "depth "+strconv.Itoa(depth)+" > "+strconv.Itoa(d.maxDepth))
	}
	if d.opts.ContainerBudget > 0 {
		d.budget--
		if d.budget <= 0 {
			return d.fail(d.pos, ErrDepth, "container budget "+strconv.Itoa(d.opts.ContainerBudget)+" used up")
		}
	}
	return nil
}

// Minimum encoded sizes, used to cap preallocation by the bytes left.
const (
	minEntrySize = 9 // hash + type code
	minElemSize  = 1 // type code
)

// count checks the limits for a container at depth and reads its count.
func (d *decoder) count(depth int, what string) (int, error) {
	if err := d.enter(depth); err != nil {
		return 0, err
	}
	if d.pos >= len(d.data) {
		return 0, d.fail(d.pos, ErrTruncated, what+" count")
	}
	n := int(d.data[d.pos])
	d.pos++
	return n, nil
}

// entryHash reads the key hash of an object entry, making sure its type
// code follows.
func (d *decoder) entryHash() (uint64, error) {
	if len(d.data)-d.pos < minEntrySize {
		return 0, d.fail(d.pos, ErrTruncated, "object entry")
	}
	h := binary.LittleEndian.Uint64(d.data[d.pos:])
	d.pos += 8
	return h, nil
}

func (d *decoder) object(depth int) (*Object, error) {
	n, err := d.count(depth, "object")
	if err != nil {
		return nil, err
	}
	if d.discard {
		d.counts.objs++
		d.counts.keys += n
		d.counts.vals += n
		base := len(d.open)
		for range n {
			off := d.pos
			h, err := d.entryHash()
			if err != nil {
				return nil, err
			}
			if d.markDups {
				d.noteKey(base, h, off)
			}
			if err := d.value(depth, &d.scratch); err != nil {
				return nil, err
			}
		}
		d.open = d.open[:base]
		return nil, nil
	}
	o := d.newObject()
	if n == 0 {
		return o, nil
	}
	c := min(n, (len(d.data)-d.pos)/minEntrySize)
	o.keys = d.keys.take(c)
	o.vals = d.vals.take(c)
	var hasDebug bool
	for range n {
		h, err := d.entryHash()
		if err != nil {
			return nil, err
		}
		// Values are decoded in place. A repeated key keeps its first
		// position and takes the last value, as in the reference.
		i := o.index(h)
		if i < 0 {
			o.keys = append(o.keys, h)
			o.vals = append(o.vals, Value{})
			i = len(o.vals) - 1
			hasDebug = hasDebug || h == debugHash
		}
		if err := d.value(depth, &o.vals[i]); err != nil {
			return nil, err
		}
	}
	if hasDebug && !d.opts.NoDebugNames {
		o.resolveDebugNames()
	}
	return o, nil
}

// noteKey records the entry at off with key h of the object whose keys
// start at open[base], marking the previous entry with the same key as
// superseded.
func (d *decoder) noteKey(base int, h uint64, off int) {
	for i := base; i < len(d.open); i++ {
		if d.open[i].hash == h {
			d.dups = append(d.dups, d.open[i].off)
			d.open[i].off = off
			return
		}
	}
	d.open = append(d.open, openKey{h, off})
}

// superseded reports whether the object entry at off is followed by
// another entry with the same key (see markDups). Offsets must be asked in
// increasing order.
func (d *decoder) superseded(off int) bool {
	for d.nextDup < len(d.dups) && d.dups[d.nextDup] < off {
		d.nextDup++
	}
	return d.nextDup < len(d.dups) && d.dups[d.nextDup] == off
}

// array decodes an Array at depth into dst.
func (d *decoder) array(depth int, dst *Value) error {
	n, err := d.count(depth, "array")
	if err != nil {
		return err
	}
	if d.discard {
		d.counts.objs++
		d.counts.vals += n
		for range n {
			if err := d.value(depth, &d.scratch); err != nil {
				return err
			}
		}
		return nil
	}
	a := d.newObject()
	if n > 0 {
		a.vals = d.vals.take(min(n, (len(d.data)-d.pos)/minElemSize))
	}
	for range n {
		a.vals = append(a.vals, Value{})
		if err := d.value(depth, &a.vals[len(a.vals)-1]); err != nil {
			return err
		}
	}
	*dst = Value{kind: KindArray, ref: a}
	return nil
}

// value reads a type code and the value that follows into dst; depth is
// that of the container holding it.
func (d *decoder) value(depth int, dst *Value) error {
	k, err := d.typeCode()
	if err != nil {
		return err
	}
	return d.valueOf(k, depth, dst)
}

// typeCode reads a type code (checked by valueOf).
func (d *decoder) typeCode() (Kind, error) {
	if d.pos >= len(d.data) {
		return 0, d.fail(d.pos, ErrTruncated, "type code")
	}
	d.pos++
	return Kind(d.data[d.pos-1]), nil
}

// valueOf reads the value of type code k, which was just read; depth is
// that of the container holding it. In discard mode it only checks the
// value: strings and containers come back empty.
func (d *decoder) valueOf(k Kind, depth int, dst *Value) error {
	b := d.data[d.pos:]
	switch k {
	case KindNull:
		*dst = Value{}
		return nil
	case KindBool:
		if len(b) < 1 {
			break
		}
		d.pos++
		switch {
		case b[0] == 1:
			*dst = Value{kind: KindBool, num: 1}
			return nil
		case b[0] != 0 && d.opts.StrictBool:
			return d.fail(d.pos-1, ErrBool, "byte "+strconv.Itoa(int(b[0])))
		}
		*dst = Value{kind: KindBool}
		return nil
	case KindUint8:
		if len(b) < 1 {
			break
		}
		d.pos++
		*dst = Value{kind: k, num: uint64(b[0])}
		return nil
	case KindInt8:
		if len(b) < 1 {
			break
		}
		d.pos++
		*dst = Value{kind: k, num: uint64(int64(int8(b[0])))}
		return nil
	case KindUint16:
		if len(b) < 2 {
			break
		}
		d.pos += 2
		*dst = Value{kind: k, num: uint64(binary.LittleEndian.Uint16(b))}
		return nil
	case KindInt16:
		if len(b) < 2 {
			break
		}
		d.pos += 2
		*dst = Value{kind: k, num: uint64(int64(int16(binary.LittleEndian.Uint16(b))))}
		return nil
	case KindUint32, KindFloat32:
		if len(b) < 4 {
			break
		}
		d.pos += 4
		*dst = Value{kind: k, num: uint64(binary.LittleEndian.Uint32(b))}
		return nil
	case KindInt32:
		if len(b) < 4 {
			break
		}
		d.pos += 4
		*dst = Value{kind: k, num: uint64(int64(int32(binary.LittleEndian.Uint32(b))))}
		return nil
	case KindUint64, KindInt64, KindFloat64:
		if len(b) < 8 {
			break
		}
		d.pos += 8
		*dst = Value{kind: k, num: binary.LittleEndian.Uint64(b)}
		return nil
	case KindString:
		n := bytes.IndexByte(b, 0)
		if n < 0 {
			return d.fail(d.pos, ErrUnterminated, "")
		}
		// A scan already checked the strings of a build pass.
		if !d.scanned && !utf8.Valid(b[:n]) {
			return d.fail(d.pos, ErrInvalidUTF8, "not UTF-8")
		}
		start := d.pos
		d.pos += n + 1
		if n == 0 {
			*dst = Value{kind: KindString}
			return nil
		}
		*dst = Value{kind: KindString, str: d.str(start, start+n)}
		return nil
	case KindArray:
		return d.array(depth+1, dst)
	case KindObject:
		o, err := d.object(depth + 1)
		if err != nil {
			return err
		}
		*dst = Value{kind: KindObject, ref: o}
		return nil
	default:
		return d.fail(d.pos-1, ErrTypeCode, strconv.Itoa(int(k)))
	}
	return d.fail(d.pos, ErrTruncated, k.String()+" value")
}

// resolveDebugNames names the keys listed in the object's __debug__ array
// of strings. Non-string elements and names matching no key are ignored.
func (o *Object) resolveDebugNames() {
	dbg, _ := o.GetHash(debugHash)
	for _, e := range dbg.Array() {
		if name, ok := e.AsString(); ok {
			o.SetName(name)
		}
	}
	o.SetName(DebugKey)
}
