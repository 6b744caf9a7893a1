package sd

// Hash returns the 64-bit DJB2 hash of name (spec rev 2 §7) that BPXSD
// objects use as property keys: h = 5381, then h = h*33 + b for every byte
// b of the UTF-8 encoding of name, with wrapping uint64 arithmetic.
func Hash(name string) uint64 {
	h := uint64(5381)
	for i := 0; i < len(name); i++ {
		h = h<<5 + h + uint64(name[i])
	}
	return h
}

// debugHash is Hash("__debug__"), the key of the debug-names array.
const debugHash uint64 = 0x0377BEB4DD4088E8

// DebugKey is the name of the optional property that lists the names of an
// object's keys (spec rev 2 §10.2.5).
const DebugKey = "__debug__"
