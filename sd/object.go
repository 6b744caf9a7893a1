package sd

import "iter"

// Object is a BPXSD object: properties keyed by the 64-bit [Hash] of their
// name, kept in insertion order (decoding keeps the order of the input).
// A key's name is known when it was set by name or resolved from a
// __debug__ array while decoding; it is what JSON output and the
// [WithDebugNames] option use.
//
// The zero Object is empty and ready to use. Lookups scan the keys, which
// suits the at most 255 entries an encodable object holds. An Object is
// not safe for concurrent modification.
type Object struct {
	keys  []uint64
	vals  []Value
	names []string // nil, or parallel to keys with "" for unknown names
}

// Entry is one property of an Object.
type Entry struct {
	Hash  uint64 // Hash of the property name
	Name  string // the name, or "" when unknown
	Value Value
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// Value returns o wrapped as an Object Value, for nesting it in another
// Object or Array. A nil o gives an empty Object.
func (o *Object) Value() Value {
	if o == nil {
		o = &Object{}
	}
	return Value{kind: KindObject, ref: o}
}

// Len returns the number of properties (0 for a nil Object).
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Set sets the property name to v, replacing the value of an existing
// property with the same hash in place, and records the name. It returns o
// so that calls can be chained.
func (o *Object) Set(name string, v Value) *Object {
	i := o.set(Hash(name), v)
	o.setName(i, name)
	return o
}

// SetHash sets the property with key hash to v, like Set, without a name.
// The name of an existing property is kept.
func (o *Object) SetHash(hash uint64, v Value) *Object {
	o.set(hash, v)
	return o
}

func (o *Object) set(hash uint64, v Value) int {
	if i := o.index(hash); i >= 0 {
		o.vals[i] = v
		return i
	}
	o.keys = append(o.keys, hash)
	o.vals = append(o.vals, v)
	if o.names != nil {
		o.names = append(o.names, "")
	}
	return len(o.keys) - 1
}

func (o *Object) setName(i int, name string) {
	if name == "" && o.names == nil {
		return
	}
	if o.names == nil {
		o.names = make([]string, len(o.keys), cap(o.keys))
	}
	o.names[i] = name
}

// index returns the position of hash, or -1.
func (o *Object) index(hash uint64) int {
	for i, k := range o.keys {
		if k == hash {
			return i
		}
	}
	return -1
}

// Get returns the value of the property name.
func (o *Object) Get(name string) (Value, bool) { return o.GetHash(Hash(name)) }

// GetHash returns the value of the property with key hash.
func (o *Object) GetHash(hash uint64) (Value, bool) {
	if i := o.index(hash); i >= 0 {
		return o.vals[i], true
	}
	return Value{}, false
}

// Delete removes the property name, keeping the order of the others, and
// reports whether it was present.
func (o *Object) Delete(name string) bool { return o.DeleteHash(Hash(name)) }

// DeleteHash removes the property with key hash, like Delete.
func (o *Object) DeleteHash(hash uint64) bool {
	i := o.index(hash)
	if i < 0 {
		return false
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.names != nil {
		o.names = append(o.names[:i], o.names[i+1:]...)
	}
	return true
}

// At returns the i-th property, 0 <= i < Len().
func (o *Object) At(i int) Entry {
	return Entry{Hash: o.keys[i], Name: o.nameAt(i), Value: o.vals[i]}
}

func (o *Object) nameAt(i int) string {
	if o.names == nil {
		return ""
	}
	return o.names[i]
}

// Name returns the known name of the property with key hash, or "".
func (o *Object) Name(hash uint64) string {
	if i := o.index(hash); i >= 0 {
		return o.nameAt(i)
	}
	return ""
}

// SetName records name as the name of the property with key Hash(name), if
// there is one, and reports whether there was.
func (o *Object) SetName(name string) bool {
	i := o.index(Hash(name))
	if i < 0 {
		return false
	}
	o.setName(i, name)
	return true
}

// ResolveNames records each of names as the name of the key it hashes to,
// in o and in every Object nested in it (through Arrays too), and returns
// how many keys got a name. It recovers the names of files written without
// a __debug__ array when the candidate names are known.
func (o *Object) ResolveNames(names ...string) int {
	hashes := make([]uint64, len(names))
	for i, n := range names {
		hashes[i] = Hash(n)
	}
	return o.resolveNames(names, hashes, 0)
}

func (o *Object) resolveNames(names []string, hashes []uint64, depth int) int {
	count := 0
	for i, k := range o.keys {
		for j, h := range hashes {
			if h == k && names[j] != "" && o.nameAt(i) != names[j] {
				o.setName(i, names[j])
				count++
				break
			}
		}
	}
	if depth >= DefaultMaxDepth { // values built in memory may nest deeper
		return count
	}
	for _, v := range o.vals {
		count += v.resolveNames(names, hashes, depth+1)
	}
	return count
}

func (v Value) resolveNames(names []string, hashes []uint64, depth int) int {
	count := 0
	switch v.kind {
	case KindObject:
		count += v.ref.resolveNames(names, hashes, depth)
	case KindArray:
		for _, e := range v.ref.vals {
			if depth < DefaultMaxDepth {
				count += e.resolveNames(names, hashes, depth+1)
			}
		}
	}
	return count
}

// All iterates over the properties in order, yielding each key hash and
// value. It includes a __debug__ property if the object has one.
func (o *Object) All() iter.Seq2[uint64, Value] {
	return func(yield func(uint64, Value) bool) {
		for i, k := range o.keys {
			if !yield(k, o.vals[i]) {
				return
			}
		}
	}
}

// Entries iterates over the properties in order, with their names.
func (o *Object) Entries() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		for i := range o.keys {
			if !yield(o.At(i)) {
				return
			}
		}
	}
}

// Equal reports whether o and p hold the same keys with equal values (see
// [Value.Equal]), in any order. A nil Object equals an empty one.
func (o *Object) Equal(p *Object) bool {
	if o.Len() != p.Len() {
		return false
	}
	for i := 0; i < o.Len(); i++ {
		w, ok := p.GetHash(o.keys[i])
		if !ok || !o.vals[i].Equal(w) {
			return false
		}
	}
	return true
}
