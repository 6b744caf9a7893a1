package blk

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// Every error for bad input matches the bpx sentinel of its class, as the
// module promises, besides the sentinel of this package.
func TestErrorsMatchBPXSentinels(t *testing.T) {
	badSD, _ := sd.UnmarshalTypedJSON([]byte(`{"format":"blk/9"}`))
	fromSD := func() error { _, err := FromSD(badSD); return err }
	for _, tc := range []struct {
		name    string
		err     error
		own     error
		bpxKind error
	}{
		{"truncated names", decodeErr([]byte{1, 2, 0x40, 'a', 0}), ErrFormat, bpx.ErrFormat},
		{"names size limit", decodeErr([]byte{1, 1, 0x81, 0x80, 0x80, 0x80, 0x01}), ErrTooLarge, bpx.ErrTooLarge},
		{"BBz bomb header", decodeErr([]byte{0, 'B', 'B', 'z', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}), ErrTooLarge, bpx.ErrTooLarge},
		{"text file", decodeErr([]byte("a:i=1")), ErrUnsupported, bpx.ErrUnsupported},
		{"BBF version 2", decodeErr([]byte{0, 'B', 'B', 'F', 2, 0, 0, 0, 0, 0, 0, 0}), ErrUnsupported, bpx.ErrUnsupported},
		{"SLIM without nm", decodeErr([]byte{3, 0, 1, 0, 0, 0, 0, 0}), ErrNameMapRequired, bpx.ErrUnsupported},
		{"SLIM_ZST_DICT without dict", (&Decoder{nameMap: &NameMap{}}).decodeErr([]byte{5, 0x28, 0xb5, 0x2f, 0xfd}), ErrDictRequired, bpx.ErrUnsupported},
		{"text syntax", parseErr(ParseText([]byte("a{"))), ErrFormat, bpx.ErrFormat},
		{"typed JSON", parseErr(ParseTypedJSON([]byte(`{"name":1}`))), ErrFormat, bpx.ErrFormat},
		{"name map", func() error { _, err := ParseNameMap([]byte{1, 2}); return err }(), ErrFormat, bpx.ErrFormat},
		{"BPXSD form", fromSD(), ErrFormat, bpx.ErrFormat},
		{"BPX container", parseErr(ReadBPX(bytes.NewReader([]byte("BPXP")), 4)), nil, bpx.ErrFormat},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.own != nil && !errors.Is(tc.err, tc.own) {
			t.Errorf("%s: %v does not match %v", tc.name, tc.err, tc.own)
		}
		if !errors.Is(tc.err, tc.bpxKind) {
			t.Errorf("%s: %v does not match %v", tc.name, tc.err, tc.bpxKind)
		}
	}
}

func decodeErr(data []byte) error { return (&Decoder{}).decodeErr(data) }

func (d *Decoder) decodeErr(data []byte) error {
	_, err := d.Decode(data)
	return err
}

func parseErr(_ *Block, err error) error { return err }
