package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
)

// bo3dFlags are the flags of "bpx bo3d".
type bo3dFlags struct {
	json bool
	out  string
}

func setupBO3D(fs *flag.FlagSet) func(*env, []string) int {
	var fl bo3dFlags
	fs.BoolVar(&fl.json, "json", false, "print the dump as JSON")
	fs.StringVar(&fl.out, "o", "", "convert to a BPX model written to `OUT` (- for standard output)")
	return fl.run
}

func (fl *bo3dFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want exactly one FILE, got %d", len(pos))
	}
	if fl.json && fl.out != "" {
		return e.usageError("--json and -o exclude each other")
	}
	f, err := readBO3D(e, pos[0])
	if err != nil {
		return e.fail(err)
	}
	switch {
	case fl.out != "":
		err = writeBO3DModel(e, fl.out, f)
	case fl.json:
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(dumpBO3D(f))
	default:
		err = dumpBO3D(f).writeText(e.Stdout)
	}
	if err != nil {
		return e.fail(err)
	}
	return exitOK
}

// bo3dModelOptions is how "bpx bo3d -o" stores the model's sections.
var bo3dModelOptions = bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: bpx.DefaultThreshold}

// writeBO3DModel converts f to a BPX model written to name: atomically
// for a file, nothing being written when the conversion fails.
func writeBO3DModel(e *env, name string, f *bo3d.File) error {
	if name == "-" {
		var buf bytes.Buffer
		if err := bo3d.WriteModel(&buf, f, bo3dModelOptions); err != nil {
			return err
		}
		_, err := e.Stdout.Write(buf.Bytes())
		return err
	}
	return saveFile(name, func(_ context.Context, w io.Writer) error { return bo3d.WriteModel(w, f, bo3dModelOptions) })
}

// readBO3D reads and decodes the named file, "-" meaning standard input.
func readBO3D(e *env, name string) (*bo3d.File, error) {
	var r io.Reader = e.Stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		r = fh
	}
	f, err := bo3d.Read(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// bo3dDump is the readable form of a BO3D file shared by the text and JSON
// outputs. Vertex, colour and triangle lists are summarised; keyframes and
// bones are listed.
type bo3dDump struct {
	Version   int32        `json:"version"`
	FloatBits int          `json:"floatBits"`
	Entities  []entityDump `json:"entities"`
}

type entityDump struct {
	Index      int            `json:"index"`
	Name       string         `json:"name"`
	Kind       string         `json:"kind"` // "pivot" or "mesh"
	Parent     int32          `json:"parent"`
	Position   [3]jsonFloat   `json:"position"`
	Scale      [3]jsonFloat   `json:"scale"`
	Rotation   [4]jsonFloat   `json:"rotation"` // w, x, y, z
	AnimLength int32          `json:"animLength"`
	Keyframes  []keyframeDump `json:"keyframes"`
	Mesh       *meshDump      `json:"mesh,omitempty"`
}

type keyframeDump struct {
	Frame    int32        `json:"frame"`
	Position [3]jsonFloat `json:"position"`
	Scale    [3]jsonFloat `json:"scale"`
	Rotation [4]jsonFloat `json:"rotation"`
}

type meshDump struct {
	Vertices  int          `json:"vertices"`
	Colors    int          `json:"colors"`
	Triangles int          `json:"triangles"`
	Texture   string       `json:"texture"`
	Color     string       `json:"color"` // the 4 raw bytes in hex
	Alpha     jsonFloat    `json:"alpha"`
	FX        uint32       `json:"fx"`
	FXNames   []string     `json:"fxNames"`
	BoundsMin [3]jsonFloat `json:"boundsMin"`
	BoundsMax [3]jsonFloat `json:"boundsMax"`
	Bones     []bo3d.Bone  `json:"bones"`
}

// jsonFloat is a float32 that JSON-encodes NaN and infinities as the
// strings "NaN", "+Inf" and "-Inf" instead of failing.
type jsonFloat float32

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte(strconv.Quote(f.String())), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 32), nil
}

func (f jsonFloat) String() string {
	if math.IsInf(float64(f), 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(float64(f), 'g', -1, 32)
}

var fxNames = []string{"fullbright", "flatshaded", "nofog", "addblend", "mulblend", "nocull"}

func dumpBO3D(f *bo3d.File) *bo3dDump {
	d := &bo3dDump{Version: f.Version, FloatBits: f.FloatBits, Entities: make([]entityDump, len(f.Entities))}
	for i := range f.Entities {
		e := &f.Entities[i]
		ed := &d.Entities[i]
		*ed = entityDump{Index: i, Name: e.Name, Kind: "pivot", Parent: e.Parent,
			Position: floats3(e.Position), Scale: floats3(e.Scale), Rotation: floats4(e.Rotation),
			AnimLength: e.AnimLength, Keyframes: make([]keyframeDump, len(e.Keyframes))}
		for k, kf := range e.Keyframes {
			ed.Keyframes[k] = keyframeDump{kf.Frame, floats3(kf.Position), floats3(kf.Scale), floats4(kf.Rotation)}
		}
		m := e.Mesh
		if m == nil {
			continue
		}
		ed.Kind = "mesh"
		md := &meshDump{Vertices: len(m.Vertices), Colors: len(m.Colors), Triangles: len(m.Triangles),
			Texture: m.Texture, Color: fmt.Sprintf("%x", m.Color[:]), Alpha: jsonFloat(m.Alpha),
			FX: m.FX, FXNames: []string{}, Bones: m.Bones}
		if md.Bones == nil {
			md.Bones = []bo3d.Bone{}
		}
		for b, n := range fxNames {
			if m.FX&(1<<b) != 0 {
				md.FXNames = append(md.FXNames, n)
			}
		}
		md.BoundsMin, md.BoundsMax = bounds(m.Vertices)
		ed.Mesh = md
	}
	return d
}

// bounds returns the axis-aligned box of the vertex positions, skipping NaN.
func bounds(vs []bo3d.Vertex) (lo, hi [3]jsonFloat) {
	first := true
	for _, v := range vs {
		p := v.Position
		if math.IsNaN(float64(p[0])) || math.IsNaN(float64(p[1])) || math.IsNaN(float64(p[2])) {
			continue
		}
		for k := range 3 {
			x := jsonFloat(p[k])
			if first || x < lo[k] {
				lo[k] = x
			}
			if first || x > hi[k] {
				hi[k] = x
			}
		}
		first = false
	}
	return lo, hi
}

func floats3(v [3]float32) [3]jsonFloat {
	return [3]jsonFloat{jsonFloat(v[0]), jsonFloat(v[1]), jsonFloat(v[2])}
}
func floats4(v [4]float32) [4]jsonFloat {
	return [4]jsonFloat{jsonFloat(v[0]), jsonFloat(v[1]), jsonFloat(v[2]), jsonFloat(v[3])}
}

func vec[T any](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func (d *bo3dDump) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "BO3D version %d, %d-bit vertex floats, %d entities\n", d.Version, d.FloatBits, len(d.Entities))
	for _, e := range d.Entities {
		fmt.Fprintf(&b, "\nentity %d %q: %s, parent %d\n", e.Index, e.Name, e.Kind, e.Parent)
		fmt.Fprintf(&b, "  position %s  scale %s  rotation wxyz %s\n", vec(e.Position[:]), vec(e.Scale[:]), vec(e.Rotation[:]))
		if e.AnimLength != 0 || len(e.Keyframes) != 0 {
			fmt.Fprintf(&b, "  animation length %d, %d keyframes\n", e.AnimLength, len(e.Keyframes))
		}
		for _, k := range e.Keyframes {
			fmt.Fprintf(&b, "    frame %d: position %s scale %s rotation %s\n", k.Frame, vec(k.Position[:]), vec(k.Scale[:]), vec(k.Rotation[:]))
		}
		m := e.Mesh
		if m == nil {
			continue
		}
		fmt.Fprintf(&b, "  %d vertices, %d vertex colours, %d triangles, texture %q\n", m.Vertices, m.Colors, m.Triangles, m.Texture)
		fmt.Fprintf(&b, "  bounds %s .. %s\n", vec(m.BoundsMin[:]), vec(m.BoundsMax[:]))
		fx := strings.Join(m.FXNames, "|")
		if fx == "" {
			fx = "none"
		}
		fmt.Fprintf(&b, "  colour bytes %s, alpha %v, fx %#x (%s)\n", m.Color, m.Alpha, m.FX, fx)
		for i, bn := range m.Bones {
			if bn.First > bn.Last {
				fmt.Fprintf(&b, "  bone %d: entity %d, no vertices (%d..%d)\n", i, bn.Entity, bn.First, bn.Last)
			} else {
				fmt.Fprintf(&b, "  bone %d: entity %d, vertices %d..%d\n", i, bn.Entity, bn.First, bn.Last)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
