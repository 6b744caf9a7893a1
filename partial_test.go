package bpx

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// partialPayload is text-like data that compresses as source code does, so
// that each compressed form holds several LZMA2 chunks and zlib blocks.
func partialPayload(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"func ", "return ", "if err != nil {", "}\n", "package ", "import ", "// ", "x", "y", "0x1F", "\t"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(7) == 0 {
			fmt.Fprintf(&b, "%d", r.Uint32())
		}
	}
	return b.Bytes()[:n]
}

// partialSections stores payload in every form a section can take.
func partialSections(t *testing.T, payload []byte) map[string]rawSection {
	secs := map[string]rawSection{
		"raw":  rawSec(1, payload, FlagCRC32),
		"zlib": {Type: 1, Flags: FlagZlib | FlagCRC32, Stored: zlibBytes(t, payload), USize: uint32(len(payload)), Sum: ReferenceCRC32(payload)},
		"xz":   {Type: 1, Flags: FlagXZ | FlagWeak, Stored: xzBytes(t, payload), USize: uint32(len(payload)), Sum: WeakChecksum(0, payload)},
	}
	// Two streams: internal/xzdec leaves the second to the streaming
	// decoder, which then decodes the first again.
	half := len(payload) / 2
	secs["xz-2-streams"] = rawSection{Type: 1, Flags: FlagXZ | FlagWeak, Stored: append(xzBytes(t, payload[:half]), xzBytes(t, payload[half:])...),
		USize: uint32(len(payload)), Sum: WeakChecksum(0, payload)}
	// The project's own writer, whose xz sections the flat decoder takes.
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.WriteSection(1, SectionOptions{Compression: CompressXZ, Checksum: ChecksumCRC32}, payload))
	require.NoError(t, w.Close())
	rd := open(t, buf.Bytes())
	s := rd.Sections[0]
	secs["xz-own"] = rawSection{Type: 1, Flags: s.Flags, Stored: buf.Bytes()[s.Pointer : s.Pointer+uint64(s.CSize)], USize: s.USize, Sum: s.Checksum}
	return secs
}

// TestPartialDecodesOnlyWhatIsAsked decodes each form of section in steps:
// every step returns a prefix of the data at least as long as asked and
// not much longer, and only the end is verified.
func TestPartialDecodesOnlyWhatIsAsked(t *testing.T) {
	payload := partialPayload(1 << 20)
	for name, sec := range partialSections(t, payload) {
		t.Run(name, func(t *testing.T) {
			rd := open(t, buildContainer('P', [16]byte{}, []rawSection{sec}))
			s := rd.Sections[0]
			p, err := s.OpenPartial(make([]byte, 0, len(payload)))
			require.NoError(t, err)
			defer p.Close()
			first, err := p.DecodeTo(1)
			require.NoError(t, err)
			for _, n := range []int64{1, 100, 5000, 5001, 70000, 300000, 300001, 900000} {
				out, err := p.DecodeTo(n)
				require.NoError(t, err, "DecodeTo(%d)", n)
				require.GreaterOrEqual(t, int64(len(out)), n)
				// Far less than the section: only what was asked, plus
				// at most a buffer's worth (or an LZMA2 match).
				require.Less(t, int64(len(out)), n+maxPartialOvershoot, "DecodeTo(%d) returned %d bytes", n, len(out))
				require.Less(t, p.decoded(), n+maxPartialOvershoot, "DecodeTo(%d) decoded %d bytes", n, p.decoded())
				require.Equal(t, payload[:len(out)], out)
				require.False(t, p.Verified(), "verified after %d of %d bytes", len(out), len(payload))
			}
			out, err := p.DecodeTo(int64(len(payload)))
			require.NoError(t, err)
			require.Equal(t, payload, out)
			require.True(t, p.Verified())
			require.Same(t, &first[0], &out[0], "the bytes moved")
			switch name {
			case "xz-own", "xz":
				require.NotNil(t, p.flat, "decoded in place")
			case "xz-2-streams":
				require.Nil(t, p.flat, "left to the streaming decoder")
			}
			// Asking again, or for more, changes nothing.
			out, err = p.DecodeTo(1 << 30)
			require.NoError(t, err)
			require.Equal(t, payload, out)
		})
	}
}

// TestPartialChecksError: a bad checksum is reported when the end is
// reached, not before, and the error stays.
func TestPartialChecksError(t *testing.T) {
	payload := partialPayload(256 << 10)
	for name, sec := range partialSections(t, payload) {
		t.Run(name, func(t *testing.T) {
			sec.Sum ^= 1
			rd := open(t, buildContainer('P', [16]byte{}, []rawSection{sec}))
			p, err := rd.Sections[0].OpenPartial(nil)
			require.NoError(t, err)
			defer p.Close()
			out, err := p.DecodeTo(1000)
			require.NoError(t, err)
			require.Equal(t, payload[:len(out)], out)
			_, err = p.DecodeTo(int64(len(payload)))
			require.ErrorIs(t, err, ErrChecksum)
			require.False(t, p.Verified())
			_, err2 := p.DecodeTo(1)
			require.ErrorIs(t, err2, ErrChecksum)
		})
	}
}

// TestPartialCorruptStream: damaged and cut streams fail with ErrFormat,
// never a panic, whatever step meets the damage.
func TestPartialCorruptStream(t *testing.T) {
	payload := partialPayload(256 << 10)
	for name, sec := range partialSections(t, payload) {
		if name == "raw" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, cut := range []int{len(sec.Stored) / 2, len(sec.Stored) - 1} {
				bad := sec
				bad.Stored = sec.Stored[:cut]
				rd := open(t, buildContainer('P', [16]byte{}, []rawSection{bad}))
				p, err := rd.Sections[0].OpenPartial(nil)
				if err != nil {
					require.ErrorIs(t, err, ErrFormat)
					continue
				}
				_, err = p.DecodeTo(int64(len(payload)))
				require.Error(t, err)
				require.True(t, errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum), "%v", err)
				p.Close()
			}
			for i := 20; i < len(sec.Stored); i += len(sec.Stored) / 7 {
				bad := sec
				bad.Stored = bytes.Clone(sec.Stored)
				bad.Stored[i] ^= 0x55
				rd := open(t, buildContainer('P', [16]byte{}, []rawSection{bad}))
				p, err := rd.Sections[0].OpenPartial(nil)
				if err != nil {
					continue
				}
				for n := int64(1); n <= int64(len(payload)); n *= 3 {
					if _, err = p.DecodeTo(n); err != nil {
						break
					}
				}
				if err == nil {
					_, err = p.DecodeTo(int64(len(payload)))
				}
				require.Error(t, err, "byte %d changed", i)
				p.Close()
			}
		})
	}
}

// FuzzPartial decodes every section of arbitrary containers in steps of
// the fuzzer's choosing: whatever Data returns, DecodeTo returns the same
// bytes and ends verified; where Data fails, stepping never ends verified.
// Bytes returned before an error are a prefix of what the stream decodes
// to as far as it goes (never garbage past a step).
func FuzzPartial(f *testing.F) {
	text := partialPayload(6000)
	f.Add(buildContainer('Z', [16]byte{}, []rawSection{
		rawSec(1, text, FlagWeak),
		{2, FlagZlib | FlagCRC32, zlibBytes(f, text), uint32(len(text)), ReferenceCRC32(text)},
		{3, FlagXZ | FlagWeak, xzBytes(f, text), uint32(len(text)), WeakChecksum(0, text)},
	}), uint16(1), uint16(700))
	var own bytes.Buffer
	w := NewWriter(&own)
	if err := w.WriteSection(1, SectionOptions{Compression: CompressXZ, Checksum: ChecksumCRC32}, text); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(own.Bytes(), uint16(3000), uint16(1))
	f.Add(blockContainer(f, text, 4<<10), uint16(500), uint16(900))
	f.Fuzz(func(t *testing.T, b []byte, first, step uint16) {
		opts := []Option{WithMaxSectionSize(1 << 20), WithMaxXZDictionary(1 << 20), WithMaxSections(64)}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), opts...)
		if err != nil {
			return
		}
		for _, s := range r.Sections {
			want, werr := s.Data()
			p, err := s.OpenPartial(nil)
			if err != nil {
				if werr == nil {
					t.Fatalf("section %d: Data reads, OpenPartial fails: %v", s.Index, err)
				}
				continue
			}
			var out []byte
			n := int64(first)
			for range 256 {
				out, err = p.DecodeTo(n)
				if err != nil || p.Verified() {
					break
				}
				if int64(len(out)) < n {
					t.Fatalf("section %d: DecodeTo(%d) returned %d bytes, no error", s.Index, n, len(out))
				}
				n += int64(step) + 1
			}
			if err == nil && !p.Verified() {
				out, err = p.DecodeTo(1 << 30)
			}
			p.Close()
			switch {
			case werr == nil && (err != nil || !bytes.Equal(out, want)):
				t.Fatalf("section %d: Data reads %d bytes, stepping %d bytes: %v", s.Index, len(want), len(out), err)
			case werr != nil && err == nil:
				t.Fatalf("section %d: Data fails (%v), stepping ends verified", s.Index, werr)
			}
			// Each block stepped through alone: what AppendBlock returns,
			// and the block's part of what Data returns.
			blocks, _ := s.Blocks()
			for _, bl := range blocks {
				whole, aerr := s.AppendBlock(nil, bl)
				bp, err := s.OpenBlock(nil, bl)
				if err != nil {
					continue // the stored bytes cannot be read
				}
				var got []byte
				for n := int64(first); err == nil && !bp.Verified() && n < 1<<30; n = n*2 + int64(step) + 1 {
					got, err = bp.DecodeTo(n)
				}
				bp.Close()
				switch {
				case aerr == nil && (err != nil || !bytes.Equal(got, whole)):
					t.Fatalf("section %d block %d: AppendBlock %d bytes, stepping %d: %v", s.Index, bl.Index, len(whole), len(got), err)
				case aerr != nil && err == nil:
					t.Fatalf("section %d block %d: AppendBlock fails (%v), stepping ends verified", s.Index, bl.Index, aerr)
				case werr == nil && aerr == nil && !bytes.Equal(whole, want[bl.Offset:bl.Offset+bl.Size]):
					t.Fatalf("section %d block %d: not Data's bytes", s.Index, bl.Index)
				}
			}
		}
	})
}
