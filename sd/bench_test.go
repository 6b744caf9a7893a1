package sd

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchMeta is a typical package metadata document: a few hundred mixed
// values (strings, integers of several widths, floats, bools, nested
// objects and arrays).
type benchMeta struct {
	Name        string            `sd:"name" json:"name"`
	Version     uint32            `sd:"version" json:"version"`
	Description string            `sd:"description" json:"description"`
	Authors     []string          `sd:"authors" json:"authors"`
	License     string            `sd:"license" json:"license"`
	Arch        uint8             `sd:"arch" json:"arch"`
	Platform    uint8             `sd:"platform" json:"platform"`
	Stable      bool              `sd:"stable" json:"stable"`
	Score       float64           `sd:"score" json:"score"`
	Deps        []benchDep        `sd:"deps" json:"deps"`
	Files       []benchFile       `sd:"files" json:"files"`
	Build       benchBuild        `sd:"build" json:"build"`
	Labels      map[string]string `sd:"labels" json:"labels"`
}

type benchDep struct {
	Name     string `sd:"name" json:"name"`
	Version  uint32 `sd:"version" json:"version"`
	Optional bool   `sd:"optional" json:"optional"`
}

type benchFile struct {
	Path  string  `sd:"path" json:"path"`
	Size  uint64  `sd:"size" json:"size"`
	Hash  uint64  `sd:"hash" json:"hash"`
	Flags uint16  `sd:"flags" json:"flags"`
	Ratio float32 `sd:"ratio" json:"ratio"`
	Delta int32   `sd:"delta" json:"delta"`
}

type benchBuild struct {
	Host    string  `sd:"host" json:"host"`
	Time    int64   `sd:"time" json:"time"`
	Jobs    int16   `sd:"jobs" json:"jobs"`
	Flags   []int8  `sd:"flags" json:"flags"`
	Weights []int32 `sd:"weights" json:"weights"`
}

func makeBenchMeta() benchMeta {
	m := benchMeta{
		Name: "example-package", Version: 0x00020003,
		Description: "A sample package used to measure BPXSD against encoding/json.",
		Authors:     []string{"Ada Lovelace", "Alan Turing", "Grace Hopper"},
		License:     "BSD-3-Clause", Arch: 1, Platform: 2, Stable: true, Score: 0.875,
		Build: benchBuild{Host: "builder-07", Time: 1764000000, Jobs: 8,
			Flags: []int8{-1, 0, 1, 2}, Weights: []int32{100, -200, 300000, 4}},
		Labels: map[string]string{"tier": "gold", "owner": "assets", "region": "eu"},
	}
	for i := 0; i < 12; i++ {
		m.Deps = append(m.Deps, benchDep{Name: fmt.Sprintf("dep-%02d", i), Version: uint32(i * 257), Optional: i%3 == 0})
	}
	for i := 0; i < 40; i++ {
		m.Files = append(m.Files, benchFile{
			Path: fmt.Sprintf("assets/textures/tile_%03d.png", i), Size: uint64(1000 + i*4093),
			Hash: 0x9e3779b97f4a7c15 * uint64(i+1), Flags: uint16(i % 7), Ratio: float32(i) / 40, Delta: int32(-i * 1000),
		})
	}
	return m
}

type benchDocs struct {
	meta    benchMeta
	obj     *Object
	sdData  []byte
	generic any // the JSON document decoded generically
	json    []byte
}

func newBenchDocs(b *testing.B) benchDocs {
	d := benchDocs{meta: makeBenchMeta()}
	v, err := MarshalValue(d.meta)
	if err != nil {
		b.Fatal(err)
	}
	d.obj = v.Object()
	if d.sdData, err = Encode(d.obj); err != nil {
		b.Fatal(err)
	}
	if d.json, err = json.Marshal(d.meta); err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(d.json, &d.generic); err != nil {
		b.Fatal(err)
	}
	return d
}

// countValues counts the values of a document, containers included.
func countValues(v Value) int {
	n := 1
	for _, e := range v.Array() {
		n += countValues(e)
	}
	if o := v.Object(); o != nil {
		for _, e := range o.vals {
			n += countValues(e)
		}
	}
	return n
}

func TestBenchDocumentIsTypical(t *testing.T) {
	m := makeBenchMeta()
	v, err := MarshalValue(m)
	if err != nil {
		t.Fatal(err)
	}
	if n := countValues(v); n < 200 || n > 600 {
		t.Errorf("benchmark document has %d values, want a few hundred", n)
	}
	data, _ := Marshal(m)
	var back benchMeta
	if err := Unmarshal(data, &back); err != nil || back.Files[39].Hash != m.Files[39].Hash {
		t.Errorf("benchmark document does not round-trip: %v", err)
	}
}

// Decode of the whole document into the generic model of each codec.
func BenchmarkDecode(b *testing.B) {
	d := newBenchDocs(b)
	b.Run("sd", func(b *testing.B) {
		b.SetBytes(int64(len(d.sdData)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(d.sdData); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(d.json)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(d.json, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Encode of the generic model of each codec.
func BenchmarkEncode(b *testing.B) {
	d := newBenchDocs(b)
	b.Run("sd", func(b *testing.B) {
		b.SetBytes(int64(len(d.sdData)))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = (encodeConfig{}).append(buf[:0], d.obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(d.json)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(d.generic); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Unmarshal into the Go struct.
func BenchmarkUnmarshal(b *testing.B) {
	d := newBenchDocs(b)
	b.Run("sd", func(b *testing.B) {
		b.SetBytes(int64(len(d.sdData)))
		b.ReportAllocs()
		for b.Loop() {
			var m benchMeta
			if err := Unmarshal(d.sdData, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(d.json)))
		b.ReportAllocs()
		for b.Loop() {
			var m benchMeta
			if err := json.Unmarshal(d.json, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Marshal from the Go struct.
func BenchmarkMarshal(b *testing.B) {
	d := newBenchDocs(b)
	b.Run("sd", func(b *testing.B) {
		b.SetBytes(int64(len(d.sdData)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Marshal(d.meta); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(d.json)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(d.meta); err != nil {
				b.Fatal(err)
			}
		}
	})
}
