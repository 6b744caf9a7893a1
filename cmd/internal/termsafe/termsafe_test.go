package termsafe

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are names an attacker might give an object, with how Name
// prints them.
var hostile = []struct{ name, want string }{
	{"\x1b]0;TITLE\a\x1b[2J", `"\x1b]0;TITLE\a\x1b[2J"`},
	{"a\nb", `"a\nb"`},
	{"a\rb\tc", `"a\rb\tc"`},
	{"del\x7f", `"del\x7f"`},
	{"c1\u009b31m", `"c1\u009b31m"`},
	{"\u202etxt.exe", `"\u202etxt.exe"`},
	{"zw\u200dj\ufeff", `"zw\u200dj\ufeff"`},
	{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
	{"nb\u00a0sp", `"nb\u00a0sp"`},
	{"caf\xe9", `"caf\xe9"`},
	{"\xff\xfe", `"\xff\xfe"`},
	{`"quoted"`, `"\"quoted\""`},
	{`"`, `"\""`},
	{"日本\x1b語", `"日本\x1b語"`},
}

// plain are names Name prints as they are.
var plain = []string{"", "textures/sky.png", "dir/utf8-你好.txt", "ファイル名.txt", "with space ", `mid"quote`, `back\slash`, "a'b", "\ufffd", "émoji 🎮"}

func TestName(t *testing.T) {
	for _, tc := range hostile {
		if Plain(tc.name) {
			t.Errorf("Plain(%q) = true", tc.name)
		}
		if got := Name(tc.name); got != tc.want {
			t.Errorf("Name(%q) = %s, want %s", tc.name, got, tc.want)
		}
		if got := string(AppendName([]byte("x "), tc.name)); got != "x "+tc.want {
			t.Errorf("AppendName(%q) = %s", tc.name, got)
		}
		checkSafe(t, Name(tc.name), false)
		// The quoted form gives the exact bytes back.
		if back, err := strconv.Unquote(Name(tc.name)); err != nil || back != tc.name {
			t.Errorf("Unquote(Name(%q)) = %q, %v", tc.name, back, err)
		}
	}
	for _, name := range plain {
		if !Plain(name) || Name(name) != name || string(AppendName(nil, name)) != name {
			t.Errorf("Name(%q) = %q, want it as it is", name, Name(name))
		}
	}
}

func TestMessage(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`open "x": no such file`, `open "x": no such file`},
		{"open \x1b]0;T\a: duplicate name", `open \x1b]0;T\a: duplicate name`},
		{"two\nlines\tand tab", `two\nlines\tand tab`},
		{"bidi \u202eexe.txt", `bidi \u202eexe.txt`},
		{"bad \xff utf8 \xe9", `bad \xff utf8 \xe9`},
		{"c1 \u0085 del \x7f", `c1 \u0085 del \x7f`},
		{"plane 14 \U000e0001 tag", `plane 14 \U000e0001 tag`},
		{"日本語 ok", "日本語 ok"},
	} {
		got := Message(tc.msg)
		if got != tc.want {
			t.Errorf("Message(%q) = %s, want %s", tc.msg, got, tc.want)
		}
		checkSafe(t, got, false)
	}
	if got := Lines("a\tb\nc\x1b[2J\r\n"); got != "a\tb\nc\\x1b[2J\\r\n" {
		t.Errorf("Lines = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, s := range []string{"plain line\n", "name: \x1b]0;T\a\x9b\n", "\t日本\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "plain line\nname: \\x1b]0;T\\a\\x9b\n\t日本\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	checkSafe(t, b.String(), true)
	fail := errors.New("disk full")
	if n, err := NewWriter(errWriter{fail}).Write([]byte("\x1b")); n != 0 || err != fail {
		t.Errorf("failing Write = %d, %v", n, err)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// TestEveryRune: no rune and no byte, alone or between others, gets
// through Name, Message or Lines unescaped unless printable.
func TestEveryRune(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		all.WriteRune(r)
	}
	for c := 0x80; c <= 0xff; c++ {
		all.WriteByte(byte(c)) // stray continuation and lead bytes
	}
	s := all.String()
	checkSafe(t, Message(s), false)
	checkSafe(t, Lines(s), true)
	checkSafe(t, Name(s), false)
}

// checkSafe fails unless s is valid UTF-8 of printable runes only (and, with
// lines, line feeds and tabs).
func checkSafe(t *testing.T, s string, lines bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("invalid UTF-8 in %q", s)
		return
	}
	for i, r := range s {
		if !strconv.IsPrint(r) && !(lines && (r == '\n' || r == '\t')) {
			t.Errorf("unprintable %U at %d of %q", r, i, s)
			return
		}
	}
}

func BenchmarkName(b *testing.B) {
	var buf []byte
	for range b.N {
		buf = AppendName(buf[:0], "textures/terrain/grass_diffuse_0042.png")
	}
}

// TestPlainEightBytesAtATime: the eight-bytes-at-a-time check agrees with
// the byte-by-byte rule for every byte value at every position of a word,
// and for names of every length around a word.
func TestPlainEightBytesAtATime(t *testing.T) {
	slow := func(s string) bool {
		if s != "" && s[0] == '"' {
			return false
		}
		for _, r := range []rune(s) {
			if !strconv.IsPrint(r) {
				return false
			}
		}
		return utf8.ValidString(s)
	}
	for n := 1; n <= 17; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				if got, want := Plain(string(b)), slow(string(b)); got != want {
					t.Fatalf("Plain(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
