package errclass

import (
	"errors"
	"fmt"
	"testing"
)

func TestNew(t *testing.T) {
	class := errors.New("class")
	other := errors.New("other")
	a := New("a", class)
	b := New("a", class)
	wrapped := fmt.Errorf("context: %w", a)
	switch {
	case a.Error() != "a":
		t.Errorf("message %q", a.Error())
	case !errors.Is(wrapped, a) || !errors.Is(wrapped, class):
		t.Error("a wrapped sentinel does not match itself and its class")
	case errors.Is(a, b) || errors.Is(a, other):
		t.Error("a sentinel matches another sentinel or class")
	}
}
