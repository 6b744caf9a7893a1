package sd

import "fmt"

// DecodeOption configures Decode, DecodePrefix, Unmarshal and
// UnmarshalTypedJSON. Options follow the module's one idiom (see
// bpx.Option): WithX(value) for settings, a verb phrase for switches, each
// checked when the call applies it; a value out of range makes the call
// fail before it reads anything.
type DecodeOption func(*decodeConfig) error

// EncodeOption configures Encode, Append, Marshal and AppendMarshal, in
// the idiom of DecodeOption.
type EncodeOption func(*encodeConfig) error

func newDecodeConfig(opts []DecodeOption) (decodeConfig, error) {
	var c decodeConfig
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

func newEncodeConfig(opts []EncodeOption) (encodeConfig, error) {
	var c encodeConfig
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

func optionError(option string, value any, want string) error {
	return fmt.Errorf("sd: %s(%v): %s", option, value, want)
}

// WithMaxDecodeDepth sets the deepest nesting decoding accepts (default
// DefaultMaxDepth); 1 allows only a flat root object. n must be at least 1.
func WithMaxDecodeDepth(n int) DecodeOption {
	return func(c *decodeConfig) error {
		if n < 1 {
			return optionError("WithMaxDecodeDepth", n, "less than 1")
		}
		c.MaxDepth = n
		return nil
	}
}

// WithContainerBudget also applies the reference's max_depth rule: a
// counter shared by the whole value that every Object and Array (the root
// included) decrements, failing when it reaches zero. A value with n
// containers is thus accepted when n is less than the budget. Use
// ReferenceMaxDepth to reject exactly what the reference rejects for
// package metadata. n must be at least 1.
func WithContainerBudget(n int) DecodeOption {
	return func(c *decodeConfig) error {
		if n < 1 {
			return optionError("WithContainerBudget", n, "less than 1")
		}
		c.ContainerBudget = n
		return nil
	}
}

// NoDebugNames disables resolving key names from __debug__ arrays. The
// __debug__ property itself is kept either way.
func NoDebugNames() DecodeOption {
	return func(c *decodeConfig) error { c.NoDebugNames = true; return nil }
}

// StrictBool rejects Bool bytes other than 0 and 1 with ErrBool. By
// default, like the reference, 1 is true and any other byte is false.
func StrictBool() DecodeOption {
	return func(c *decodeConfig) error { c.StrictBool = true; return nil }
}

// WithDebugNames writes a __debug__ array of key names (spec rev 2
// §10.2.5) in every object, at any level, that has at least one named key;
// it replaces any __debug__ property the object already has, and lists
// each named key once, in key order. Without it objects are written as
// they are, including any __debug__ property they hold.
func WithDebugNames() EncodeOption {
	return func(c *encodeConfig) error { c.DebugNames = true; return nil }
}

// WithMaxEncodeDepth sets the deepest nesting written (default
// DefaultMaxDepth); n must be at least 1.
func WithMaxEncodeDepth(n int) EncodeOption {
	return func(c *encodeConfig) error {
		if n < 1 {
			return optionError("WithMaxEncodeDepth", n, "less than 1")
		}
		c.MaxDepth = n
		return nil
	}
}
