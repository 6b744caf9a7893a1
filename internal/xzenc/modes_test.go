package xzenc

import (
	"bytes"
	"testing"
)

var presets = map[string]Options{
	"fast":    PresetFast,
	"default": PresetDefault,
	"max":     PresetMax,
}

func TestPresetsRoundTrip(t *testing.T) {
	for pname, o := range presets {
		e := Encoder{Options: o}
		for name, data := range corpus(t) {
			z := encode(t, &e, data, 1<<20)
			if got := decodeXi2(t, z); !bytes.Equal(got, data) {
				t.Fatalf("%s/%s: decodes to %d of %d bytes", pname, name, len(got), len(data))
			}
			t.Logf("%s/%s: %d -> %d", pname, name, len(data), len(z))
		}
	}
}
