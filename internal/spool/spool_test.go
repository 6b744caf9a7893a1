package spool

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
)

func payload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// writeInPieces writes p in pieces of varying sizes to exercise chunk
// boundaries.
func writeInPieces(t *testing.T, b *Buffer, p []byte) {
	t.Helper()
	sizes := []int{1, 7, 500, 4096, ChunkSize - 3, ChunkSize, 3*ChunkSize + 11}
	for i := 0; len(p) > 0; i++ {
		k := min(len(p), sizes[i%len(sizes)])
		n, err := b.Write(p[:k])
		if err != nil || n != k {
			t.Fatalf("Write(%d bytes) = %d, %v", k, n, err)
		}
		p = p[k:]
	}
}

func TestBufferRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size      int
		limit     int64
		wantSpill bool
	}{
		{"empty", 0, 100, false},
		{"small in memory", 100, 100, false},
		{"one byte over the limit", 101, 100, true},
		{"several chunks in memory", 3*ChunkSize + 5, -1, false},
		{"several chunks spilled", 3*ChunkSize + 5, ChunkSize, true},
		{"zero limit spills anything", 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			want := payload(tc.size, uint64(tc.size))
			b := New(dir, tc.limit)
			writeInPieces(t, b, want)
			if b.Size() != int64(tc.size) {
				t.Fatalf("Size = %d, want %d", b.Size(), tc.size)
			}
			if got := !b.InMemory(); got != tc.wantSpill {
				t.Fatalf("spilled = %v, want %v", got, tc.wantSpill)
			}
			if n := len(files(t, dir)); (n == 1) != tc.wantSpill {
				t.Fatalf("%d temporary files, spilled = %v", n, tc.wantSpill)
			}
			if err := b.Finish(); err != nil {
				t.Fatal(err)
			}
			for range 2 { // WriteTo may be repeated
				var got bytes.Buffer
				n, err := b.WriteTo(&got)
				if err != nil || n != int64(tc.size) || !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("WriteTo = %d, %v; equal %v", n, err, bytes.Equal(got.Bytes(), want))
				}
			}
			if err := b.Remove(); err != nil {
				t.Fatal(err)
			}
			if err := b.Remove(); err != nil {
				t.Fatalf("second Remove: %v", err)
			}
			if left := files(t, dir); len(left) != 0 {
				t.Fatalf("temporary files left after Remove: %v", left)
			}
		})
	}
}

func TestWriteAfterFinishOfSpilledBufferFails(t *testing.T) {
	b := New(t.TempDir(), 0)
	defer b.Remove()
	if _, err := b.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("y")); err == nil {
		t.Fatal("Write after Finish succeeded")
	}
	if _, err := new(Buffer).WriteTo(&bytes.Buffer{}); err != nil {
		t.Fatalf("WriteTo of an empty buffer: %v", err)
	}
}

func TestSpillFailsInMissingDir(t *testing.T) {
	b := New(t.TempDir()+"/missing", 1)
	if _, err := b.Write([]byte("too long")); err == nil {
		t.Fatal("spilling into a missing directory succeeded")
	}
}

func TestMoveToShared(t *testing.T) {
	dir := t.TempDir()
	s := NewShared(dir)
	var bufs []*Buffer
	var wants [][]byte
	for i, n := range []int{10, 0, ChunkSize + 1, 77} {
		want := payload(n, uint64(i))
		b := New(dir, -1)
		writeInPieces(t, b, want)
		if err := b.MoveTo(s); err != nil {
			t.Fatal(err)
		}
		if b.InMemory() {
			t.Fatal("moved buffer still reports InMemory")
		}
		if _, err := b.Write([]byte("x")); err == nil {
			t.Fatal("write to a moved buffer succeeded")
		}
		bufs, wants = append(bufs, b), append(wants, want)
	}
	if n := len(files(t, dir)); n != 1 {
		t.Fatalf("%d files for one shared spool", n)
	}
	for i := len(bufs) - 1; i >= 0; i-- { // any order
		var got bytes.Buffer
		if _, err := bufs[i].WriteTo(&got); err != nil || !bytes.Equal(got.Bytes(), wants[i]) {
			t.Fatalf("body %d: %v, equal %v", i, err, bytes.Equal(got.Bytes(), wants[i]))
		}
	}
	// A spilled buffer is not moved.
	b := New(dir, 0)
	writeInPieces(t, b, []byte("abc"))
	if err := b.MoveTo(s); err != nil {
		t.Fatal(err)
	}
	if b.shared != nil {
		t.Fatal("file-backed buffer was moved")
	}
	b.Remove()
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufs[0].WriteTo(&bytes.Buffer{}); err == nil {
		t.Fatal("WriteTo from a removed shared file succeeded")
	}
	if left := files(t, dir); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
}

func TestFinishTrimsMemory(t *testing.T) {
	b := New("", -1)
	defer b.Remove()
	writeInPieces(t, b, payload(ChunkSize+10, 3))
	if fp := b.Footprint(); fp < 2*ChunkSize {
		t.Fatalf("footprint %d before Finish, want two full chunks", fp)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if fp := b.Footprint(); fp < ChunkSize+10 || fp > ChunkSize+64 { // allocator size classes round up a little
		t.Fatalf("footprint %d after Finish, want about %d", fp, ChunkSize+10)
	}
	var got bytes.Buffer
	if _, err := b.WriteTo(&got); err != nil || !bytes.Equal(got.Bytes(), payload(ChunkSize+10, 3)) {
		t.Fatalf("data changed by Finish: %v", err)
	}
}

// TestAppendToExactSize checks that AppendTo reads a body of each kind (in
// memory, in its own file, moved to a shared file) into dst growing it at
// most to exactly the body's size: the writer's memory bound counts one
// copy of a section, not the doubling of a bytes.Buffer.
func TestAppendToExactSize(t *testing.T) {
	dir := t.TempDir()
	shared := NewShared(dir)
	defer shared.Remove()
	const size = 3*ChunkSize + 5
	want := payload(size, 7)
	for _, kind := range []string{"memory", "file", "shared"} {
		t.Run(kind, func(t *testing.T) {
			limit := int64(-1)
			if kind == "file" {
				limit = ChunkSize
			}
			b := New(dir, limit)
			defer b.Remove()
			writeInPieces(t, b, want)
			if err := b.Finish(); err != nil {
				t.Fatal(err)
			}
			if kind == "shared" {
				if err := b.MoveTo(shared); err != nil {
					t.Fatal(err)
				}
			}
			for _, dst := range [][]byte{nil, []byte("prefix"), make([]byte, 2, size+2)} {
				got, err := b.AppendTo(dst)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got[:len(dst)], dst) || !bytes.Equal(got[len(dst):], want) {
					t.Fatalf("AppendTo(%d bytes) returned wrong data", len(dst))
				}
				// Allocation size classes may round up a little.
				if c := cap(got); c > len(dst)+size+8<<10 {
					t.Fatalf("AppendTo(cap %d) returned capacity %d for %d bytes", cap(dst), c, len(dst)+size)
				}
				if cap(dst) >= len(dst)+size && &got[0] != &dst[:1][0] {
					t.Fatal("AppendTo reallocated a buffer that had room")
				}
			}
		})
	}
}

func TestAppendToShortFile(t *testing.T) {
	dir := t.TempDir()
	b := New(dir, 0)
	defer b.Remove()
	writeInPieces(t, b, payload(100, 1))
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(b.name, 50); err != nil {
		t.Fatal(err)
	}
	if got, err := b.AppendTo([]byte("x")); err == nil || string(got) != "x" {
		t.Fatalf("AppendTo of a truncated file = %q, %v; want an error and dst unchanged", got, err)
	}
}
