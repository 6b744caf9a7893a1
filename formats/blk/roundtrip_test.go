package blk

import (
	"bytes"
	"errors"
	"testing"
)

func TestTextRoundTrip(t *testing.T) {
	trees := []*Block{sectionTree()}
	for seed := uint64(0); seed < 30; seed++ {
		trees = append(trees, genTree(seed, genOptions{blocks: 20, params: 4, oddNames: true, maxDepth: 5}))
	}
	for i, tree := range trees {
		for _, lf := range []bool{false, true} {
			var buf bytes.Buffer
			var opts []TextOption
			if lf {
				opts = append(opts, LFLineEnds())
			}
			if err := WriteText(&buf, tree, opts...); err != nil {
				t.Fatal(err)
			}
			got, err := ParseText(buf.Bytes())
			if err != nil {
				t.Fatalf("tree %d: %v\n%s", i, err, buf.String())
			}
			mustEqual(t, got, tree)
		}
	}
}

func TestParseTextEngineForms(t *testing.T) {
	src := "\xEF\xBB\xBF// comment\r\n" +
		"a:i = 0x10 ; b:i=-7 /* c, not nested in a value */\n" +
		"'q k':t=\"it's\"\n" +
		"on:b=On; off:b=0\n" +
		"col:c=1,2,3\n" +
		"m:m=[[1,2,3][4, 5, 6] [7,8,9] [10,11,12]]\n" +
		"s:t=bare words  // trailing comment\n" +
		"include \"inc.blk\"\n" +
		"blk { x:p2 = 1.5 , -2 } e{}\n" +
		"ml:t=\"\"\"  \nline1\nline2\n\"\"\"\n"
	got, err := ParseText([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Params) < 2 || got.Params[0] != (Param{"a", Int(16)}) || got.Params[1] != (Param{"b", Int(-7)}) {
		t.Fatalf("ints: %#v", got.Params)
	}
	checks := map[string]Value{
		"on":  Bool(true),
		"off": Bool(false),
		"col": ColorValue(Color{1, 2, 3, 255}),
		"m":   Matrix([12]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		"s":   Str("bare words"),
		"q k": Str("it's"),
		"ml":  Str("line1\nline2"),
	}
	for name, want := range checks {
		if v, ok := got.Param(name); !ok || v != want {
			t.Errorf("%s = %#v, want %#v", name, v, want)
		}
	}
	if v, _ := got.Lookup("blk/x"); v != Point2(1.5, -2) {
		t.Errorf("blk/x = %#v", v)
	}
	if got.Child("e") == nil {
		t.Error("empty block e missing")
	}
	if v, _ := got.Param("@include"); v != Str("inc.blk") {
		t.Errorf("include = %#v", v)
	}
}

// A block named "@null" would read back as the unnamed block "", as in the
// engine, and no spelling avoids it: WriteText refuses it rather than
// lose the name, and still writes the unnamed block as "@null".
func TestTextNullBlockName(t *testing.T) {
	b := &Block{Name: "@null"} // the root's name is not written
	b.AddBlock("").Add("x", Int(1))
	text, err := b.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseText(text)
	if err != nil || len(got.Blocks) != 1 || got.Blocks[0].Name != "" {
		t.Fatalf("got %v, %v from %q", got, err, text)
	}
	b.AddBlock("a").AddBlock("@null").Add("x", Int(1))
	var buf bytes.Buffer
	if err := WriteText(&buf, b); !errors.Is(err, ErrEncode) || buf.Len() != 0 {
		t.Errorf("a block named @null: %v, %d bytes written", err, buf.Len())
	}
}

func TestParseTextErrors(t *testing.T) {
	for _, tc := range []struct{ src, what string }{
		{"a:i=x", "bad int value"},
		{"a:zz=1", "unknown type"},
		{"a{", "'}' missing"},
		{"}", "unexpected '}'"},
		{"a:t=\"open", "unclosed string"},
		{"a:i[]=[1]", "end the last array value with ';'"},
		{"a:c=1,2,300", "bad color"},
		{"a:m=[[1,2,3]]", "bad matrix"},
		{"a", "unexpected end"},
		{"a b", "expected '{', ':' or '=' after"},
		{"/* x", "inside a comment"},
		{"\n\na:b=maybe", "line 3:5"},
	} {
		_, err := ParseText([]byte(tc.src))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.what)) {
			t.Errorf("ParseText(%q) = %v, want %q", tc.src, err, tc.what)
		}
	}
}

func TestTypedJSONRoundTrip(t *testing.T) {
	trees := []*Block{sectionTree(), {}}
	for seed := uint64(0); seed < 30; seed++ {
		trees = append(trees, genTree(seed, genOptions{blocks: 20, params: 4, oddNames: true, nanBits: true, maxDepth: 5}))
	}
	for i, tree := range trees {
		var buf bytes.Buffer
		if err := WriteTypedJSON(&buf, tree); err != nil {
			t.Fatal(err)
		}
		got, err := ParseTypedJSON(buf.Bytes())
		if err != nil {
			t.Fatalf("tree %d: %v\n%s", i, err, buf.String())
		}
		mustEqual(t, got, tree)
	}
}

func TestTypedJSONGolden(t *testing.T) {
	b := &Block{}
	b.Add("n", Int(-1)).Add("s", Str("\xffa")).Add("c", ColorValue(Color{1, 2, 3, 4})).Add("f", Real(0.1))
	b.AddBlock("e")
	var buf bytes.Buffer
	WriteTypedJSON(&buf, b)
	want := `{
  "format": "blk-typed-json/1",
  "name": "",
  "params": [
    {"name": "n", "type": "i", "value": -1},
    {"name": "s", "type": "t", "value_b64": "/2E="},
    {"name": "c", "type": "c", "value": [1, 2, 3, 4]},
    {"name": "f", "type": "r", "value": 0.1}
  ],
  "blocks": [
    {
      "name": "e",
      "params": [],
      "blocks": []
    }
  ]
}
`
	if buf.String() != want {
		t.Fatalf("got:\n%s", buf.String())
	}
}

func TestParseTypedJSONErrors(t *testing.T) {
	for _, tc := range []struct{ src, what string }{
		{`{"name":"","params":[],"blocks":[]}`, "format is"},
		{`{"format":"blk-typed-json/1","name":"","params":[{"name":"a","type":"zz","value":1}],"blocks":[]}`, "unknown type"},
		{`{"format":"blk-typed-json/1","name":"","params":[{"name":"a","type":"p2","value":[1]}],"blocks":[]}`, "1 elements, want 2"},
		{`{"format":"blk-typed-json/1","name":"","params":[{"name":"a","type":"i","value":1e10}],"blocks":[]}`, "bad i value"},
		{`{"format":"blk-typed-json/1","name":"","params":[],"blocks":[{"params":[],"blocks":[]}]}`, "/blocks[0]/: needs exactly one of name"},
		{`{"format":"blk-typed-json/1","name":"","extra":1}`, "unknown field"},
		{`{"format":"blk-typed-json/1","name":""} {}`, "data after"},
		{`{"format":"blk-typed-json/1","name":"","params":[{"name":"a","type":"r","value":"nan:0x1"}]}`, "bad NaN"},
	} {
		_, err := ParseTypedJSON([]byte(tc.src))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.what)) {
			t.Errorf("ParseTypedJSON(%s) = %v, want %q", tc.src, err, tc.what)
		}
	}
}
