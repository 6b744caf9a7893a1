package bpx

// Idle objects kept for reuse.
//
// Decoders, encoders and their buffers are expensive to build (tables,
// windows, freshly faulted-in memory) and cheap to reset, so the package
// keeps idle ones. It does so one way: a freeList per kind of object,
// declared with a comment that says
//
//   - what is kept,
//   - its count limit and the size cap that stops it from keeping huge
//     buffers (objects above the cap are dropped, or their buffers are,
//     before put), so that idle memory is bounded by count × cap,
//   - who returns objects (the function that calls put).
//
// A freeList is a bounded channel rather than a sync.Pool because a
// sync.Pool is emptied by every garbage collection, which large section
// reads and writes trigger often; rebuilding a decoder's tables then costs
// more than decoding a small section. The one exception is the streaming
// xz decoders (xzPools): their dictionary grows to what the stream
// declares, up to WithMaxXZDictionary, and cannot be trimmed from outside,
// so no size cap is possible and they stay in sync.Pools, whose contents the
// garbage collector reclaims.
type freeList[T any] struct {
	idle  chan *T
	alloc func() *T // makes a new object when none is idle
}

// newFreeList returns a freeList keeping up to n idle objects; alloc makes
// new ones (nil for new(T)).
func newFreeList[T any](n int, alloc func() *T) *freeList[T] {
	if alloc == nil {
		alloc = func() *T { return new(T) }
	}
	return &freeList[T]{idle: make(chan *T, n), alloc: alloc}
}

// get returns an idle object, or a new one.
func (l *freeList[T]) get() *T {
	select {
	case x := <-l.idle:
		return x
	default:
		return l.alloc()
	}
}

// put keeps x for reuse, or drops it when the list is full. The caller
// has dropped x's references to the caller's data and any buffer above
// the list's size cap.
func (l *freeList[T]) put(x *T) {
	select {
	case l.idle <- x:
	default:
	}
}
