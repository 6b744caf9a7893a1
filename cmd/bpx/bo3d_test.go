package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
)

// testBO3D is a root pivot with one animated child mesh.
func testBO3D() *bo3d.File {
	return &bo3d.File{Version: bo3d.Version, FloatBits: 16, Entities: []bo3d.Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}, AnimLength: 10},
		{Parent: 0, Name: "tri", Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0},
			Keyframes: []bo3d.Keyframe{{Frame: 0, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}}},
			Mesh: &bo3d.Mesh{
				Vertices: []bo3d.Vertex{
					{Normal: [3]float32{0, 0, 1}, Position: [3]float32{-1, 0, 2}},
					{UV: [2]float32{1, 0}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{1, 0, 0}},
					{UV: [2]float32{0, 1}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{0, 3, 0}},
				},
				Triangles: []bo3d.Triangle{{0, 1, 2}},
				Texture:   "tri.png",
				Color:     [4]byte{0xff, 0x80, 0, 0},
				Alpha:     1,
				FX:        bo3d.FXFullBright | bo3d.FXNoCull,
				Bones:     []bo3d.Bone{{Entity: 0, First: 0, Last: 2}, {Entity: 0, First: 0, Last: -1}},
			}},
	}}
}

func writeBO3D(t *testing.T, f *bo3d.File) string {
	t.Helper()
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "test.bo3d")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestBO3DDumpText(t *testing.T) {
	name := writeBO3D(t, testBO3D())
	r := runBPX(t, nil, "bo3d", name)
	if r.Code != exitOK {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	want := `BO3D version 100, 16-bit vertex floats, 2 entities

entity 0 "root": pivot, parent -1
  position (0, 0, 0)  scale (1, 1, 1)  rotation wxyz (1, 0, 0, 0)
  animation length 10, 0 keyframes

entity 1 "tri": mesh, parent 0
  position (0, 1, 0)  scale (1, 1, 1)  rotation wxyz (1, 0, 0, 0)
  animation length 0, 1 keyframes
    frame 0: position (0, 0, 0) scale (1, 1, 1) rotation (1, 0, 0, 0)
  3 vertices, 0 vertex colours, 1 triangles, texture "tri.png"
  bounds (-1, 0, 0) .. (1, 3, 2)
  colour bytes ff800000, alpha 1, fx 0x21 (fullbright|nocull)
  bone 0: entity 0, vertices 0..2
  bone 1: entity 0, no vertices (0..-1)
`
	if r.Stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.Stdout, want)
	}
	// "-" reads standard input.
	b, _ := os.ReadFile(name)
	if r2 := runBPX(t, b, "bo3d", "-"); r2.Code != exitOK || r2.Stdout != want {
		t.Errorf("stdin: exit %d, stderr %q", r2.Code, r2.Stderr)
	}
}

func TestBO3DDumpJSON(t *testing.T) {
	f := testBO3D()
	f.Entities[1].Mesh.Alpha = float32(math.NaN())
	f.Entities[0].Position[0] = float32(math.Inf(-1))
	r := runBPX(t, nil, "bo3d", "--json", writeBO3D(t, f))
	if r.Code != exitOK {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var got struct {
		Version   int
		FloatBits int
		Entities  []struct {
			Name      string
			Kind      string
			Parent    int
			Position  []any
			Keyframes []struct{ Frame int }
			Mesh      *struct {
				Vertices, Triangles int
				Texture, Color      string
				Alpha               any
				FXNames             []string
				BoundsMax           []float64
				Bones               []struct{ Entity, First, Last int }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, r.Stdout)
	}
	if got.Version != 100 || got.FloatBits != 16 || len(got.Entities) != 2 {
		t.Fatalf("header: %+v", got)
	}
	e0, e1 := got.Entities[0], got.Entities[1]
	if e0.Kind != "pivot" || e0.Name != "root" || e0.Parent != -1 || e0.Mesh != nil || e0.Position[0] != "-Inf" {
		t.Errorf("entity 0: %+v", e0)
	}
	m := e1.Mesh
	if e1.Kind != "mesh" || m == nil || m.Vertices != 3 || m.Triangles != 1 || m.Texture != "tri.png" ||
		m.Color != "ff800000" || m.Alpha != "NaN" || strings.Join(m.FXNames, ",") != "fullbright,nocull" ||
		len(m.BoundsMax) != 3 || m.BoundsMax[1] != 3 || len(m.Bones) != 2 || m.Bones[1].Last != -1 || len(e1.Keyframes) != 1 {
		t.Errorf("entity 1: %+v, mesh %+v", e1, m)
	}
	// One key style: every key camelCase, the bones' too.
	var tree any
	if err := json.Unmarshal([]byte(r.Stdout), &tree); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	collectKeys(tree, keys)
	for k := range keys {
		if !camelCase.MatchString(k) {
			t.Errorf("key %q is not camelCase", k)
		}
	}
	for _, k := range []string{"entity", "first", "last", "floatBits", "boundsMax"} {
		if !keys[k] {
			t.Errorf("no key %q in %s", k, r.Stdout)
		}
	}
}

// camelCase matches a key in the one style of bpx's JSON.
var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// collectKeys adds the object keys found anywhere in v to keys.
func collectKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			keys[k] = true
			collectKeys(x, keys)
		}
	case []any:
		for _, x := range v {
			collectKeys(x, keys)
		}
	}
}

func TestBO3DErrors(t *testing.T) {
	good := writeBO3D(t, testBO3D())
	b, _ := os.ReadFile(good)
	binary.LittleEndian.PutUint32(b[24:], 3) // the root's parent index
	bad := filepath.Join(t.TempDir(), "bad.bo3d")
	os.WriteFile(bad, b, 0o644)

	r := runBPX(t, nil, "bo3d", bad)
	if r.Code != exitFail || !strings.Contains(r.Stderr, "entity 0: parent index 3") || !strings.Contains(r.Stderr, "offset 24") {
		t.Errorf("bad parent: exit %d, stderr %q", r.Code, r.Stderr)
	}
	checkOneLineError(t, r)

	r = runBPX(t, nil, "bo3d", filepath.Join(t.TempDir(), "missing.bo3d"))
	if r.Code != exitFail {
		t.Errorf("missing file: exit %d", r.Code)
	}
	checkOneLineError(t, r)

	r = runBPX(t, []byte("BO3"), "bo3d", "-")
	if r.Code != exitFail || !strings.Contains(r.Stderr, "shorter than the 20-byte header") {
		t.Errorf("short stdin: exit %d, stderr %q", r.Code, r.Stderr)
	}
	checkOneLineError(t, r)

	for _, args := range [][]string{{"bo3d"}, {"bo3d", good, good}, {"bo3d", "--nope", good}} {
		if r := runBPX(t, nil, args...); r.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, r.Code, exitUsage)
		}
	}
}

func TestBO3DToBPX(t *testing.T) {
	f := testBO3D()
	name := writeBO3D(t, f)
	out := filepath.Join(t.TempDir(), "out.bpx")
	r := runBPX(t, nil, "bo3d", name, "-o", out) // flags may follow FILE
	if r.Code != exitOK || r.Stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte) {
		rd, err := bpx.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if rd.Header.Type != bpx.TypeModel || len(rd.Sections) != 7 {
			t.Errorf("%s: type %q, %d sections", what, rd.Header.Type, len(rd.Sections))
		}
		g, err := bo3d.ReadModel(rd)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(g, f) {
			t.Errorf("%s: converted back to\n%+v\nwant\n%+v", what, g, f)
		}
	}
	check("file", data)
	r = runBPX(t, nil, "bo3d", "-o", "-", name)
	if r.Code != exitOK {
		t.Fatalf("-o -: exit %d, stderr %q", r.Code, r.Stderr)
	}
	check("stdout", []byte(r.Stdout))

	// A file that decodes but cannot be converted: nothing is written.
	bad := testBO3D()
	bad.Entities[1].Mesh.Triangles[0][2] = 7
	badOut := filepath.Join(t.TempDir(), "bad.bpx")
	r = runBPX(t, nil, "bo3d", "-o", badOut, writeBO3D(t, bad))
	if r.Code != exitFail || !strings.Contains(r.Stderr, "triangle 0 uses vertex 7 of 3") {
		t.Errorf("bad triangle: exit %d, stderr %q", r.Code, r.Stderr)
	}
	checkOneLineError(t, r)
	if _, err := os.Stat(badOut); !os.IsNotExist(err) {
		t.Errorf("output written despite the error: %v", err)
	}

	if r := runBPX(t, nil, "bo3d", "--json", "-o", out, name); r.Code != exitUsage {
		t.Errorf("--json with -o: exit %d", r.Code)
	}
}
