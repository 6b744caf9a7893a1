package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppend(t *testing.T) {
	for _, tc := range []struct{ in, goWant, serdeWant string }{
		{"", `""`, `""`},
		{"plain ascii", `"plain ascii"`, `"plain ascii"`},
		{"q\"b\\n\nr\rt\t", `"q\"b\\n\nr\rt\t"`, `"q\"b\\n\nr\rt\t"`},
		{"\b\f\x01\x1f", `"\u0008\u000c\u0001\u001f"`, `"\b\f\u0001\u001f"`},
		{"<&>\x7f\u2028é€", "\"<&>\x7f\u2028é€\"", "\"<&>\x7f\u2028é€\""},
		{"a\xffb", `"a\ufffdb"`, "\"a\uFFFDb\""},
		{"\xe2\x82x", `"\ufffd\ufffdx"`, "\"\uFFFDx\""},
	} {
		if got := string(Append(nil, tc.in, Go)); got != tc.goWant {
			t.Errorf("Go %q = %s, want %s", tc.in, got, tc.goWant)
		}
		if got := string(Append(nil, tc.in, Serde)); got != tc.serdeWant {
			t.Errorf("Serde %q = %s, want %s", tc.in, got, tc.serdeWant)
		}
	}
	if got := string(Append([]byte("x:"), "y", Go)); got != `x:"y"` {
		t.Errorf("Append does not append: %s", got)
	}
}

// Invalid UTF-8 is replaced as Rust's from_utf8_lossy does: one U+FFFD
// per maximal ill-formed subpart.
func TestSerdeLossyUTF8(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"ok", "ok"},
		{"a\xffb", "a" + r + "b"},
		{"\xe2\x82", r},             // truncated 3-byte sequence: one
		{"\xe2\x82x", r + "x"},      // ... followed by ASCII
		{"\xe0\x80", r + r},         // E0 80 can never be valid: two
		{"\xed\xa0\x80", r + r + r}, // surrogate
		{"\xf0\x9f\x98", r},         // truncated 4-byte sequence
		{"\xf4\x90\x80\x80", r + r + r + r},
		{"\xc0\xaf", r + r},
		{"\xe2\x82\xac", "\u20ac"},
	} {
		if got := string(AppendLossy(nil, tc.in)); got != tc.want {
			t.Errorf("AppendLossy(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(Append(nil, tc.in, Serde)); got != `"`+tc.want+`"` {
			t.Errorf("Append(%q, Serde) = %s, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzAppend checks that both flavours give valid JSON that reads back as
// the string, invalid UTF-8 aside: Go replaces each bad byte, as Go's own
// conversion to runes does, and Serde may replace several with one.
func FuzzAppend(f *testing.F) {
	f.Add("a\"b\\c\n\r\t\b\f\x01\x7f\u2028")
	f.Add("\xff\xe2\x82x\xe0\x80\xed\xa0\x80\xf0\x9f\x98é")
	f.Fuzz(func(t *testing.T, s string) {
		want := string([]rune(s))
		for _, fl := range []Flavour{Go, Serde} {
			out := Append(nil, s, fl)
			var back string
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("flavour %d: %s is not a JSON string: %v", fl, out, err)
			}
			if fl == Go && back != want {
				t.Fatalf("Go: %q reads back as %q, want %q", s, back, want)
			}
			if fl == Serde && (strings.ReplaceAll(back, "\uFFFD", "") != strings.ReplaceAll(want, "\uFFFD", "") || !utf8.ValidString(back)) {
				t.Fatalf("Serde: %q reads back as %q", s, back)
			}
		}
	})
}

// benchStrings is a JSON document's worth of strings: names, paths,
// descriptions, some with escapes, some not ASCII.
func benchStrings() []string {
	var ss []string
	for i := range 1000 {
		switch i % 5 {
		case 0:
			ss = append(ss, "textures/terrain/grass_01.dds")
		case 1:
			ss = append(ss, "version")
		case 2:
			ss = append(ss, "A sample package used to measure JSON string writing, with a longer description.")
		case 3:
			ss = append(ss, "line one\nline \"two\"\tend")
		case 4:
			ss = append(ss, "Привет, мир — ünïcödé ✓")
		}
	}
	return ss
}

func benchSize(ss []string) int64 {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	return int64(n)
}

// BenchmarkAppend compares Append with encoding/json writing the same
// strings into one buffer (encoding/json: an Encoder without HTML escaping,
// the closest it has to an append form, and json.Marshal).
func BenchmarkAppend(b *testing.B) {
	ss := benchStrings()
	b.Run("jsonstr", func(b *testing.B) {
		b.SetBytes(benchSize(ss))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for _, s := range ss {
				buf = Append(buf, s, Go)
				buf = append(buf, ',')
			}
		}
	})
	b.Run("json.Encoder", func(b *testing.B) {
		b.SetBytes(benchSize(ss))
		b.ReportAllocs()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			for _, s := range ss {
				if err := enc.Encode(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.SetBytes(benchSize(ss))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for _, s := range ss {
				q, err := json.Marshal(s)
				if err != nil {
					b.Fatal(err)
				}
				buf = append(append(buf, q...), ',')
			}
		}
	})
}
