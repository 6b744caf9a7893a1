package sd

import (
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxEntries is the largest number of properties of an Object, or elements
// of an Array, that the wire format can hold (its count is one byte).
const MaxEntries = 255

// encodeConfig is what EncodeOptions set (see options.go); the zero
// value is the default.
type encodeConfig struct {
	DebugNames bool
	MaxDepth   int // 0: DefaultMaxDepth
}

// Encode encodes o.
func Encode(o *Object, opts ...EncodeOption) ([]byte, error) {
	cfg, err := newEncodeConfig(opts)
	if err != nil {
		return nil, err
	}
	return cfg.encode(o)
}

func (opts encodeConfig) encode(o *Object) ([]byte, error) {
	return withScratch(func(b []byte) ([]byte, error) { return opts.append(b, o) })
}

// scratch holds encoding buffers for reuse, so that Encode and Marshal
// allocate only their result.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch is the largest buffer kept for reuse.
const maxScratch = 64 << 10

// withScratch runs appendTo on a reused buffer and returns a copy of what
// it produced.
func withScratch(appendTo func([]byte) ([]byte, error)) ([]byte, error) {
	p := scratch.Get().(*[]byte)
	b, err := appendTo((*p)[:0])
	var out []byte
	if err == nil {
		out = append([]byte(nil), b...)
	}
	if cap(b) <= maxScratch {
		*p = b
		scratch.Put(p)
	}
	return out, err
}

// Append appends the encoding of o to dst and returns the extended slice.
// It fails with an *EncodeError for an Object or Array with more than
// MaxEntries entries, a string holding a NUL byte or invalid UTF-8, or
// nesting deeper than MaxDepth; dst is then returned unchanged.
func Append(dst []byte, o *Object, opts ...EncodeOption) ([]byte, error) {
	cfg, err := newEncodeConfig(opts)
	if err != nil {
		return dst, err
	}
	return cfg.append(dst, o)
}

func (opts encodeConfig) append(dst []byte, o *Object) ([]byte, error) {
	e := encoder{buf: dst, opts: opts, maxDepth: opts.MaxDepth}
	if e.maxDepth <= 0 {
		e.maxDepth = DefaultMaxDepth
	}
	if o == nil {
		o = &Object{}
	}
	if err := e.object(o, 1); err != nil {
		return dst, err
	}
	return e.buf, nil
}

type encoder struct {
	buf      []byte
	opts     encodeConfig
	maxDepth int
}

// encErr returns an *EncodeError at path segment seg.
func encErr(seg string, err error) *EncodeError {
	return &EncodeError{Path: seg, Err: err}
}

// within prefixes the path of err with seg.
func within(seg string, err *EncodeError) *EncodeError {
	err.Path = seg + err.Path
	return err
}

func keySegment(o *Object, i int) string {
	if n := o.nameAt(i); n != "" {
		return "." + n
	}
	return ".#" + hex16(o.keys[i])
}

func (e *encoder) object(o *Object, depth int) *EncodeError {
	if depth > e.maxDepth {
		return encErr("", ErrDepth)
	}
	debug := e.opts.DebugNames && o.hasNames()
	n := len(o.keys)
	if debug {
		if o.index(debugHash) >= 0 {
			n-- // replaced below
		}
		n++
	}
	if n > MaxEntries {
		return encErr("", ErrCapacity)
	}
	e.buf = append(e.buf, byte(n))
	var names []Value
	for i, k := range o.keys {
		if debug {
			if k == debugHash {
				continue
			}
			if name := o.nameAt(i); name != "" {
				names = append(names, String(name))
			}
		}
		e.buf = binary.LittleEndian.AppendUint64(e.buf, k)
		if err := e.value(o.vals[i], depth); err != nil {
			return within(keySegment(o, i), err)
		}
	}
	if debug {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, debugHash)
		if err := e.value(Array(names...), depth); err != nil {
			return within("."+DebugKey, err)
		}
	}
	return nil
}

// hasNames reports whether a key other than __debug__ has a known name.
func (o *Object) hasNames() bool {
	for i, n := range o.names {
		if n != "" && o.keys[i] != debugHash {
			return true
		}
	}
	return false
}

func (e *encoder) value(v Value, depth int) *EncodeError {
	if v.kind > maxKind {
		return encErr("", ErrTypeCode)
	}
	e.buf = append(e.buf, byte(v.kind))
	switch v.kind {
	case KindNull:
	case KindBool, KindUint8, KindInt8:
		e.buf = append(e.buf, byte(v.num))
	case KindUint16, KindInt16:
		e.buf = binary.LittleEndian.AppendUint16(e.buf, uint16(v.num))
	case KindUint32, KindInt32, KindFloat32:
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(v.num))
	case KindUint64, KindInt64, KindFloat64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v.num)
	case KindString:
		if !validString(v.str) {
			return encErr("", ErrInvalidUTF8)
		}
		e.buf = append(e.buf, v.str...)
		e.buf = append(e.buf, 0)
	case KindArray:
		if depth+1 > e.maxDepth {
			return encErr("", ErrDepth)
		}
		vals := v.ref.vals
		if len(vals) > MaxEntries {
			return encErr("", ErrCapacity)
		}
		e.buf = append(e.buf, byte(len(vals)))
		for i := range vals {
			if err := e.value(vals[i], depth+1); err != nil {
				return within("["+strconv.Itoa(i)+"]", err)
			}
		}
	case KindObject:
		return e.object(v.ref, depth+1)
	}
	return nil
}

// validString reports whether s can be stored as a BPXSD string: valid
// UTF-8 without NUL bytes.
func validString(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

const hexDigits = "0123456789abcdef"

// hex16 formats h as 16 lower-case hex digits.
func hex16(h uint64) string {
	var b [16]byte
	return string(appendHex16(b[:0], h))
}
