package sd_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx/sd"
)

// TestOptionsOutOfRange: every call refuses an option out of range, naming
// it, before it decodes or encodes anything.
func TestOptionsOutOfRange(t *testing.T) {
	data, err := sd.Encode(sd.NewObject().Set("a", sd.Uint8(1)))
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"WithMaxDecodeDepth":  second(sd.Decode(data, sd.WithMaxDecodeDepth(0))),
		"WithContainerBudget": second(sd.Decode(data, sd.WithContainerBudget(-1))),
		"WithMaxEncodeDepth":  second(sd.Encode(sd.NewObject(), sd.WithMaxEncodeDepth(0))),
	} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want an error naming the option", name, err)
		}
	}
	var v struct{ A uint8 }
	if err := sd.Unmarshal(data, &v, sd.WithMaxDecodeDepth(-3)); err == nil {
		t.Error("Unmarshal accepted WithMaxDecodeDepth(-3)")
	}
	if _, err := sd.Marshal(v, sd.WithMaxEncodeDepth(-1)); err == nil {
		t.Error("Marshal accepted WithMaxEncodeDepth(-1)")
	}
}

func second[T any](_ T, err error) error { return err }

// TestOptionsApply: the options change what the calls accept and write.
func TestOptionsApply(t *testing.T) {
	nested := sd.NewObject().Set("a", sd.NewObject().Set("b", sd.Uint8(2)).Value())
	data, err := sd.Encode(nested, sd.WithDebugNames())
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := sd.Encode(nested)
	if len(data) <= len(plain) {
		t.Errorf("WithDebugNames wrote %d bytes, without %d: no names", len(data), len(plain))
	}
	if _, err := sd.Decode(data, sd.WithMaxDecodeDepth(1)); !errors.Is(err, sd.ErrDepth) {
		t.Errorf("WithMaxDecodeDepth(1) on depth 2: %v", err)
	}
	if _, err := sd.Encode(nested, sd.WithMaxEncodeDepth(1)); !errors.Is(err, sd.ErrDepth) {
		t.Errorf("WithMaxEncodeDepth(1) on depth 2: %v", err)
	}
	if _, err := sd.Decode(data, sd.WithContainerBudget(2)); !errors.Is(err, sd.ErrDepth) {
		t.Errorf("WithContainerBudget(2) on 2 objects and a name array: %v", err)
	}
	o, err := sd.Decode(data, sd.NoDebugNames())
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := o.MarshalJSON(); strings.Contains(string(j), `"a"`) {
		t.Errorf("NoDebugNames: key a resolved by name: %s", j)
	}
	o, _ = sd.Decode(data)
	if j, _ := o.MarshalJSON(); !strings.Contains(string(j), `"a"`) {
		t.Errorf("default: key a not named: %s", j)
	}
	flat, _ := sd.Encode(sd.NewObject().Set("t", sd.Bool(true)))
	flat[len(flat)-1] = 2 // a Bool byte that is neither 0 nor 1
	if _, err := sd.Decode(flat, sd.StrictBool()); !errors.Is(err, sd.ErrBool) {
		t.Errorf("StrictBool on byte 2: %v", err)
	}
	if _, err := sd.Decode(flat); err != nil {
		t.Errorf("default on byte 2: %v", err)
	}
}
