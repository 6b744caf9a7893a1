package blk

import (
	"bytes"
	"strings"
	"testing"
)

// sectionText is the engine's canonical text (DataBlock::writeText) of the
// section tree.
const sectionText = "vec4f:p4=1.25, 2.5, 5, 10\r\n" +
	"int:i=42\r\n" +
	"long:i64=64\r\n" +
	"\r\n" +
	"alpha{\r\n" +
	"  str:t=\"hello\"\r\n" +
	"  bool:b=yes\r\n" +
	"  color:c=1, 2, 3, 4\r\n" +
	"\r\n" +
	"  gamma{\r\n" +
	"    vec2i:ip2=3, 4\r\n" +
	"    vec2f:p2=1.25, 2.5\r\n" +
	"    transform:m=[[1, 0, 0] [0, 1, 0] [0, 0, 1] [1.25, 2.5, 5]]\r\n" +
	"  }\r\n" +
	"}\r\n" +
	"\r\n" +
	"beta{\r\n" +
	"  float:r=1.25\r\n" +
	"  vec2i:ip2=1, 2\r\n" +
	"  vec3f:p3=1.25, 2.5, 5\r\n" +
	"}\r\n"

func TestWriteTextGolden(t *testing.T) {
	got, err := sectionTree().MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != sectionText {
		t.Fatalf("got:\n%q\nwant:\n%q", got, sectionText)
	}
}

// section_strict.blk is kotiq's "strict" dialect: the engine's layout with
// LF line ends and Python floats. Normalising the floats must give our LF
// text exactly.
func TestWriteTextMatchesStrictSample(t *testing.T) {
	strict := string(readSample(t, "section_strict.blk"))
	strict = strings.NewReplacer(".0,", ",", ".0]", "]", ".0\n", "\n").Replace(strict + "\n")
	var buf bytes.Buffer
	WriteText(&buf, sectionTree(), LFLineEnds())
	if buf.String() != strict {
		t.Fatalf("got:\n%s\nwant:\n%s", buf.String(), strict)
	}
}

func TestTextStringQuoting(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`say "hi"`, `'say "hi"'`},
		{`it's "x"`, `"it's ~"x~""`},
		{"a~b\tc", `"a~~b~tc"`},
		{"l1\nl2", "\"\"\"\nl1\nl2\n\"\"\""},
		{"l1\n\"q\"", "'''\nl1\n\"q\"\n'''"},
		{"l1\r\nl2", "\"\"\"\nl1~r\nl2\n\"\"\""},
		{"", `""`},
	} {
		if got := string(appendTextString(nil, tc.in)); got != tc.want {
			t.Errorf("quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestWriteTextKeysAndEmptyBlocks(t *testing.T) {
	b := &Block{}
	b.Add("route_count:u32", Int(1)).Add("", Str("x")).Add("@include", Str("a.blk"))
	b.AddBlock("")
	b.AddBlock("has space").Add("f", Real(float32(1e6)))
	var buf bytes.Buffer
	WriteText(&buf, b, LFLineEnds())
	want := "\"route_count:u32\":i=1\n\"\":t=\"x\"\ninclude \"a.blk\"\n\n\"@null\"{}\n\n\"has space\"{\n  f:r=1e+06\n}\n"
	if buf.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", buf.String(), want)
	}
}

// The two text samples (kotiq's quoted dialect with hex ints and spaces
// around "=", and the strict dialect) read as the section tree.
func TestParseTextSamples(t *testing.T) {
	for _, name := range []string{"expected", "section_strict.blk"} {
		got, err := ParseText(readSample(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mustEqual(t, got, sectionTree())
	}
}
