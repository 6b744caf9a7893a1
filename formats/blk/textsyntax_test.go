package blk

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// tree builds a block from name/value pairs; a *Block value adds a
// sub-block under that name.
func tree(kv ...any) *Block {
	b := &Block{}
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case Value:
			b.Add(name, v)
		case *Block:
			v.Name = name
			b.Blocks = append(b.Blocks, v)
		}
	}
	return b
}

// The syntax of DagorEngine's text parser (blk_parser.cpp), one form per
// fixture, each with the tree the engine builds from it (directives and
// includes kept as data, as with parseOverridesNotApply and
// parseIncludesAsParams).
func TestParseTextEngineSyntax(t *testing.T) {
	f32 := math.Float32frombits
	for _, tc := range []struct {
		name, src string
		want      *Block
	}{
		// Arrays, in the forms of the engine's documentation and more.
		{"array semicolons", "param1:i[]=[42; 43; 44;]", tree("param1", Int(42), "param1", Int(43), "param1", Int(44))},
		{"array lines", "param2:t[]=[\n  \"parameter1\"\n  \"parameter2\"\n  'p3'\n]\n",
			tree("param2", Str("parameter1"), "param2", Str("parameter2"), "param2", Str("p3"))},
		{"array quoted on one line", `a:t[]=["x" "y";"z"]`, tree("a", Str("x"), "a", Str("y"), "a", Str("z"))},
		{"array empty", "a:i[]=[]\nb:i[]=[ \n ]", tree()},
		{"array spaced and commented", "a : p2 [] = [ // first\n 1, 2; 3,4\n /* c */ -1 , 0.5\n]\nb:i=1",
			tree("a", Point2(1, 2), "a", Point2(3, 4), "a", Point2(-1, 0.5), "b", Int(1))},
		{"array empty strings", "a:t[]=[x;;y;]", tree("a", Str("x"), "a", Str(""), "a", Str("y"))},
		{"array in a block", "b{ m:b[]=[yes;no;] }", tree("b", tree("m", Bool(true), "m", Bool(false)))},
		{"array of @null", `"@null":i[]=[1;]`, tree("@null", Int(1))},

		// Directives: quoted names, kept in order as data.
		{"override param", `"@override:a":i=5` + "\n" + `"@override:list[2]":t="x"`,
			tree("@override:a", Int(5), "@override:list[2]", Str("x"))},
		{"delete-all then add", `"@delete-all:packBin":b=false; packBin:b=yes`,
			tree("@delete-all:packBin", Bool(false), "packBin", Bool(true))},
		{"block directives", "\"@override:source\"\n{\n  file:t = \"a.dshl\"\n}\n\"@delete:source\" {}\n" +
			"\"@clone-last:folder\"{\n  \"@override:path\":t=\"x\"\n}\n\"@override-last\"{}\n\"@delete-last\"{}\n\"@override:b[-1]\"{ \"@delete:v\":i=0 }",
			tree("@override:source", tree("file", Str("a.dshl")), "@delete:source", tree(),
				"@clone-last:folder", tree("@override:path", Str("x")), "@override-last", tree(), "@delete-last", tree(),
				"@override:b[-1]", tree("@delete:v", Int(0)))},
		{"unknown directive", `"@foo":i=1` + "\n'@bar'{}", tree("@foo", Int(1), "@bar", tree())},

		// Includes.
		{"include bare and quoted", "include fftWaterList.blk\nINCLUDE \"a b.blk\"\nInclude\n  'c.blk'\n\"include\" d.blk // c\n",
			tree("@include", Str("fftWaterList.blk"), "@include", Str("a b.blk"), "@include", Str("c.blk"), "@include", Str("d.blk"))},
		{"include as a name", "include{}\ninclude:t=x", tree("include", Str("x"), "include", tree())},
		{"include param", `"@include":t="x.blk"`, tree("@include", Str("x.blk"))},
		{"empty include param", "b{}\n\"@include\":t=\"\"", tree("@include", Str(""), "b", tree())},

		// Simple strings (allowSimpleString).
		{"simple string", "name=value\nq = \"a b\"\nn=\n  next line", tree("name", Str("value"), "q", Str("a b"), "n", Str("next line"))},

		// Names and types.
		{"spaces and lines around tokens", "a\n:\n  i =1\nb :t= x", tree("a", Int(1), "b", Str("x"))},
		{"quoted type", `a:"i"=1` + "\n" + `b:'p2'=1,2`, tree("a", Int(1), "b", Point2(1, 2))},
		{"quoted names", `"a b":i=1` + "\n" + `'':t=x` + "\n" + `"x~"y"{}`, tree("a b", Int(1), "", Str("x"), `x"y`, tree())},
		{"null block", `"@null"{ a:i=1 }`, tree("", tree("a", Int(1)))},
		{"ip4", "a:ip4=1, -2, 3, 0x10", tree("a", IPoint4(1, -2, 3, 16))},

		// Comments and white space.
		{"comment after =", "a:i= /* c */ 5\nb:i=/*x*/6", tree("a", Int(5), "b", Int(6))},
		// A "//" comment after '=' takes its line break with it (skipWhite
		// without CR/LF in the engine), so the value may follow on the
		// next line, after LF only: CRLF leaves the LF, an error.
		{"line comment after = (LF)", "a:i= // c\n  5", tree("a", Int(5))},
		{"comment in a value", "s:t=ab /* c */cd\nt:t=x/**/y", tree("s", Str("ab cd"), "t", Str("xy"))},
		{"line break in a value comment", "s:t=ab /* c\n */ x:i=1", tree("s", Str("ab"), "x", Int(1))},
		{"line comment ends a value", "s:t=ab // c\nn:i=1//c", tree("s", Str("ab"), "n", Int(1))},
		{"nested comments", "/* a /* b */ c */ x:i=1 /**/", tree("x", Int(1))},
		{"ctrl-z and lone CR", "\x1Aa:i=1\rb:i=2\r\n", tree("a", Int(1), "b", Int(2))},
		{"brace ends a value", "b{x:t=v}", tree("b", tree("x", Str("v")))},
		{"semicolons", "a:i=1;b:i=2; c:t=\"s\" ;d{}", tree("a", Int(1), "b", Int(2), "c", Str("s"), "d", tree())},
		{"BOM", "\xEF\xBB\xBFa:i=1", tree("a", Int(1))},
		{"text ends at NUL", "a:i=1\nb:t=x\x00garbage{", tree("a", Int(1), "b", Str("x"))},

		// Strings.
		{"escapes", `s:t="~~~"~'~n~r~t~q"`, tree("s", Str("~\"'\n\r\tq"))},
		{"multi-line", "s:t='''\nl1\r\nl2\n'''; n:i=1", tree("s", Str("l1\nl2"), "n", Int(1))},
		{"multi-line inline", `s:t="""a"b""c"""`, tree("s", Str(`a"b""c`))},
		{"multi-line one newline", "s:t=\"\"\"\n\n\n\"\"\"", tree("s", Str("\n"))},
		{"quoted number", `n:i="5"`, tree("n", Int(5))},

		// Numbers, as parse_naive and fast_float read them.
		{"ints", "a:i=+5\nb:i=4294967295\nc:i=0x\nd:i=0xFFffFFff\ne:i=-0\nf:i=2147483648",
			tree("a", Int(5), "b", Int(-1), "c", Int(0), "d", Int(-1), "e", Int(0), "f", Int(math.MinInt32))},
		{"int64", "a:i64=0xffffffffffffffff\nb:i64=-9223372036854775808\nc:i64=18446744073709551615\nd:i64=0x",
			tree("a", Int64(-1), "b", Int64(math.MinInt64), "c", Int64(-1), "d", Int64(0))},
		{"floats", "a:r=+1.5\nb:r=.5\nc:r=5.\nd:r=1e3\ne:r=-INF\nf:r=Infinity\ng:r=1E-2\nh:r=-0",
			tree("a", Real(1.5), "b", Real(.5), "c", Real(5), "d", Real(1000), "e", Real(float32(math.Inf(-1))),
				"f", Real(float32(math.Inf(1))), "g", Real(0.01), "h", Real(f32(0x80000000)))},
		{"nan", "a:r=nan\nb:r=NaN(123)", tree("a", Real(f32(quietNaN)), "b", Real(f32(quietNaN)))},
		{"bools", "a:b=TRUE\nb:b=Off\nc:b=1\nd:b=no", tree("a", Bool(true), "b", Bool(false), "c", Bool(true), "d", Bool(false))},
		{"vector text after the last component", "a:p2=1,2,3\nb:ip3=1 , 2 ,3abc\nc:p3=1,2,3.5.6",
			tree("a", Point2(1, 2), "b", IPoint3(1, 2, 3), "c", Point3(1, 2, 3.5))},
		{"colors", "a:c=1, 2, 3\nb:c=1,2,3,300\nc:c=0x10,0,255,-1",
			tree("a", ColorValue(Color{1, 2, 3, 255}), "b", ColorValue(Color{1, 2, 3, 44}), "c", ColorValue(Color{16, 0, 255, 255}))},
		{"matrices", "a:m=[[1,2,3][4,5,6][7,8,9][10,11,12]]\nb:m=[ [1, 0, 0]  [0,1,0] [0,0,1] [0.5,0,0] ] tail",
			tree("a", Matrix([12]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
				"b", Matrix([12]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0}))},
	} {
		got, err := ParseText([]byte(tc.src))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !Equal(got, tc.want) {
			var g, w bytes.Buffer
			WriteTypedJSON(&g, got)
			WriteTypedJSON(&w, tc.want)
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, g.String(), w.String())
			continue
		}
		// What was read writes back to text that reads back the same.
		text, err := got.MarshalText()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		again, err := ParseText(text)
		if err != nil || !equalModuloNaN(again, got) {
			t.Errorf("%s: text round trip: %v\n%s", tc.name, err, text)
		}
	}
}

// Malformed arrays, directives and values: errors that match ErrFormat
// and name the line and column.
func TestParseTextSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src, what string
		line, col int
	}{
		{"a:i[]=[1 2 3]", `bad int value "1 2 3]"`, 1, 8},
		{"a:i[]=[1;2;3]", "end the last array value with ';'", 1, 12},
		{"x:i=0\na:i[]=[1;\n2;", "array a:i[] not closed", 2, 7},
		{"a:i[]=\n[1;]", "must start on the line of its '='", 1, 7},
		{"a:i[] =1;", "expected '[' to open the array", 1, 8},
		{"b{a:t[]=[x;}", "expected ']' to close the array", 1, 12},
		{"a:i[ ]=[1;]", "expected '=' after a:i", 1, 4},
		{"\n  \"@override:a\":i[]=[1;]", `directive "@override:a" cannot take an array`, 2, 3},
		{"@override:a:i=1", "directive names such as", 1, 1},
		{"b{\n  @delete:x{}\n}", "found '@'", 2, 3},
		{"include", `unexpected end of text after "include"`, 1, 8},
		{"b{\n include }", "include without a file name", 2, 10},
		{"a:t=\nb:t=x", "value of \"a\" missing", 1, 5},
		{"a:t=", "value of \"a\" missing", 1, 5},
		{"a:i= // c\r\n5", "value of \"a\" missing", 1, 11},
		{"a:i=1.5", `bad int value "1.5"`, 1, 5},
		{"a:i=0X10", "bad int value", 1, 5},
		{"a:i=", "value of \"a\" missing", 1, 5},
		{"a:i=-0x10", "bad int value", 1, 5},
		{"a:i=-", "bad int value", 1, 5},
		{"a:i=+", "bad int value", 1, 5},
		{"a:i64=x", "bad int64 value", 1, 7},
		{"a:r=1e39", "bad real value", 1, 5},
		{"a:r=1f", "bad real value", 1, 5},
		{"a:p2=1,\t2", "component 2 is not a number", 1, 6},
		{"a:p3=1,2", "2 components, want 3", 1, 6},
		{"a:c=1,2,256", "out of 0..255", 1, 5},
		{"a:c=1,2,3,", "alpha is not a number", 1, 5},
		{"a:m=[[1,2,3][4,5,6][7,8,9]]", "row 4 not in [ ]", 1, 5},
		{"a:m=[[1,2,3][4,5,6][7,8,9][1,2,3]", "want 4 rows", 1, 5},
		{"a:b=maybe", "not a boolean", 1, 5},
		{"a:x=1", `unknown type "x"`, 1, 3},
		{"a:\n  ip5=1", `unknown type "ip5"`, 2, 3},
		{"a:=1", "expected a type", 1, 3},
		{"a:t=\"open\nb:i=1", "unclosed string", 1, 5},
		{"a:t='''open", "unclosed string", 1, 5},
		{"a:t=x /* open", "inside a comment", 1, 7},
		{"a{\n\n}\n}", "unexpected '}'", 4, 1},
		{"a{\n b{}", "'}' missing", 2, 5},
		{"a b", `expected '{', ':' or '=' after "a"`, 1, 3},
		{"a:i=1 }", "unexpected '}'", 1, 7},
		{"x{};", "expected a name, found ';'", 1, 4},
	} {
		_, err := ParseText([]byte(tc.src))
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, bpx.ErrFormat) || !errors.Is(err, ErrFormat) {
			t.Errorf("ParseText(%q) = %v, want a FormatError", tc.src, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.what) || fe.Line != tc.line || fe.Column != tc.col {
			t.Errorf("ParseText(%q) = %v (line %d:%d), want %q at %d:%d", tc.src, err, fe.Line, fe.Column, tc.what, tc.line, tc.col)
		}
	}
}

// An include after a sub-block would move when written back (the tree
// keeps params before blocks): refused as unsupported, not malformed.
func TestParseTextIncludeAfterBlock(t *testing.T) {
	for _, src := range []string{"a:i=1\nb{}\ninclude \"x.blk\"", "b{}\n\"@include\":t=x.blk"} {
		_, err := ParseText([]byte(src))
		if !errors.Is(err, ErrUnsupported) || !errors.Is(err, bpx.ErrUnsupported) || errors.Is(err, bpx.ErrFormat) ||
			!strings.Contains(err.Error(), "line 3:1") && !strings.Contains(err.Error(), "line 2:1") {
			t.Errorf("ParseText(%q) = %v, want ErrUnsupported at its line", src, err)
		}
	}
	// Inside another block, or before the blocks, an include is fine.
	got, err := ParseText([]byte("include a.blk\nb{ include c.blk\n d{} }\nx{}"))
	want := tree("@include", Str("a.blk"), "b", tree("@include", Str("c.blk"), "d", tree()), "x", tree())
	if err != nil || !Equal(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
}

// The engine's limits: 65535 params per block.
func TestParseTextTooManyParams(t *testing.T) {
	src := "a:t[]=[" + strings.Repeat(";", maxBlockEntries) + "]"
	b, err := ParseText([]byte(src))
	if err != nil || len(b.Params) != maxBlockEntries {
		t.Fatalf("%d params: %v", maxBlockEntries, err)
	}
	_, err = ParseText([]byte("x:i=1\n" + src))
	var fe *FormatError
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, bpx.ErrTooLarge) || !errors.As(err, &fe) || fe.Line != 2 {
		t.Fatalf("65536 params: %v", err)
	}
}

// directivesText uses every new form; directivesCanonical is how
// WriteText writes its tree.
const directivesText = `include "base.blk"
"@override:speed":r=2.5
"@delete-all:tag":t=""
tag:t[]=["a"; "b"]
"@override:weapon[2]"{
  "@delete:ammo":i=0
  ammo:i[]=[1;2;]
}
"@clone-last:folder"{ "@override:path":t=x }
`

const directivesCanonical = "include \"base.blk\"\n" +
	"\"@override:speed\":r=2.5\n" +
	"\"@delete-all:tag\":t=\"\"\n" +
	"tag:t=\"a\"\n" +
	"tag:t=\"b\"\n" +
	"\n" +
	"\"@override:weapon[2]\"{\n" +
	"  \"@delete:ammo\":i=0\n" +
	"  ammo:i=1\n" +
	"  ammo:i=2\n" +
	"}\n" +
	"\n" +
	"\"@clone-last:folder\"{\n" +
	"  \"@override:path\":t=\"x\"\n" +
	"}\n"

// Arrays and directives survive every form of the tree: text, typed JSON,
// binary BLK of every kind and BPXSD.
func TestTextDirectivesThroughEveryForm(t *testing.T) {
	b, err := ParseText([]byte(directivesText))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteText(&text, b, LFLineEnds()); err != nil || text.String() != directivesCanonical {
		t.Fatalf("text %v:\n%s", err, text.String())
	}
	var js bytes.Buffer
	if err := WriteTypedJSON(&js, b); err != nil {
		t.Fatal(err)
	}
	if got, err := ParseTypedJSON(js.Bytes()); err != nil || !Equal(got, b) {
		t.Fatalf("typed JSON: %v", err)
	}
	nm := &NameMap{Names: []string{"tag", "ammo"}}
	d := &Decoder{nameMap: nm}
	for _, e := range []*Encoder{{kind: KindFAT}, {kind: KindFATZstd}, {kind: KindSlim, nameMap: nm}, {kind: KindSlimZstd, nameMap: nm}} {
		data, err := e.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := d.Decode(data); err != nil || !Equal(got, b) {
			t.Fatalf("%v: %v", e.kind, err)
		}
	}
	o, err := ToSD(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := FromSD(o); err != nil || !Equal(got, b) {
		t.Fatalf("BPXSD: %v", err)
	}
}

// What text cannot carry is refused by WriteText, and nothing is written.
func TestWriteTextRefuses(t *testing.T) {
	deep := &Block{}
	for c, i := deep, 0; i <= MaxDepth; i++ {
		c = c.AddBlock("d")
	}
	wide := &Block{Params: make([]Param, maxBlockEntries+1)}
	for i := range wide.Params {
		wide.Params[i] = Param{"a", Int(1)}
	}
	for name, b := range map[string]*Block{
		"NUL in a string":     tree("s", Str("a\x00b")),
		"NUL in a param name": tree("a\x00", Int(1)),
		"NUL in a block name": tree("ok", tree("x", tree("b\x00", tree()))),
		"too deep":            deep,
		"too many params":     wide,
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, b); !errors.Is(err, ErrEncode) || buf.Len() != 0 {
			t.Errorf("%s: %v, %d bytes written", name, err, buf.Len())
		}
	}
	// MaxDepth levels are fine, and read back.
	ok := &Block{}
	for c, i := ok, 0; i < MaxDepth; i++ {
		c = c.AddBlock("d")
	}
	text, err := ok.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseText(text); err != nil || !Equal(got, ok) {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
}
