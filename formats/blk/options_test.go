package blk

import (
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestOptions: the constructors refuse options out of range and kinds
// they cannot write, and the options reach the coders.
func TestOptions(t *testing.T) {
	if _, err := NewDecoder(WithMaxSize(0)); err == nil {
		t.Error("NewDecoder accepted WithMaxSize(0)")
	}
	if _, err := NewEncoder(KindFAT, WithLevel(zstd.EncoderLevel(99))); err == nil {
		t.Error("NewEncoder accepted level 99")
	}
	for _, tc := range []struct {
		kind Kind
		opts []Option
		want error
	}{
		{KindBBF, nil, ErrUnsupported},
		{KindSlim, nil, ErrNameMapRequired},
		{KindSlimZstdDict, []Option{WithNameMap(&NameMap{})}, ErrDictRequired},
	} {
		if _, err := NewEncoder(tc.kind, tc.opts...); !errors.Is(err, tc.want) {
			t.Errorf("NewEncoder(%v) = %v, want %v", tc.kind, err, tc.want)
		}
	}
	if _, err := Encode(sectionTree(), KindSlim); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Encode(KindSlim) = %v, want ErrUnsupported", err)
	}
	nm := &NameMap{Names: []string{"a"}}
	e, err := NewEncoder(KindSlimZstd, WithNameMap(nm), WithLevel(zstd.SpeedFastest), InternStrings())
	if err != nil {
		t.Fatal(err)
	}
	if e.nameMap != nm || e.level != zstd.SpeedFastest || !e.internStrings {
		t.Errorf("encoder options not applied: %+v", e)
	}
	d, err := NewDecoder(WithNameMap(nm), WithDicts([]byte("d1"), []byte("d2")), WithMaxSize(1234))
	if err != nil {
		t.Fatal(err)
	}
	if d.nameMap != nm || len(d.dicts) != 2 || d.limit() != 1234 {
		t.Errorf("decoder options not applied: %+v", d)
	}
}
