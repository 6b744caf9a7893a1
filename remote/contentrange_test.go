package remote

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 0-0/1", 0, 0, 1, true},
		{"bytes 0-262143/1048576", 0, 262143, 1048576, true},
		{"bytes 5-9/*", 5, 9, -1, true},
		{"bytes 007-9/10", 7, 9, 10, true},
		{"bytes 9223372036854775806-9223372036854775806/9223372036854775807", 1<<63 - 2, 1<<63 - 2, 1<<63 - 1, true},
		{"bytes 0-9223372036854775808/*", 0, 0, 0, false}, // overflow
		{"bytes 0-10/10", 0, 0, 0, false},                 // past the end
		{"bytes 5-4/10", 0, 0, 0, false},
		{"bytes */10", 0, 0, 0, false},
		{"bytes -5/10", 0, 0, 0, false},
		{"bytes 0-5", 0, 0, 0, false},
		{"bytes  0-5/10", 0, 0, 0, false},
		{"bytes 0-5/10 ", 0, 0, 0, false},
		{"bytes +0-5/10", 0, 0, 0, false},
		{"Bytes 0-5/10", 0, 0, 0, false},
		{"items 0-5/10", 0, 0, 0, false},
		{"bytes 0-5/1-0", 0, 0, 0, false},
		{"bytes 0-5/-10", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	} {
		first, last, total, err := parseContentRange(tc.in)
		if tc.ok != (err == nil) || tc.ok && (first != tc.first || last != tc.last || total != tc.total) {
			t.Errorf("parseContentRange(%q) = %d, %d, %d, %v", tc.in, first, last, total, err)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: %v does not match ErrProtocol", tc.in, err)
		}
	}
}

// FuzzContentRange checks that parseContentRange never panics, that what
// it accepts is a valid range, and that it reads back what it printed.
func FuzzContentRange(f *testing.F) {
	for _, s := range []string{
		"bytes 0-0/1", "bytes 0-262143/1048576", "bytes 5-9/*", "bytes 007-9/10",
		"bytes 9223372036854775806-9223372036854775806/9223372036854775807",
		"bytes 0-9223372036854775808/*", "bytes */10", "bytes 5-4/10", "bytes 0-5",
		"bytes 0-5/10 ", "bytes +0-5/10", "bytes 0-5/1-0", "bytes 1-2-3/4", "bytes 0-1/2/3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("%q: %v does not match ErrProtocol", s, err)
			}
			return
		}
		if first < 0 || last < first || total < -1 || total >= 0 && last >= total {
			t.Fatalf("%q: accepted %d-%d/%d", s, first, last, total)
		}
		tot := "*"
		if total >= 0 {
			tot = fmt.Sprint(total)
		}
		canon := fmt.Sprintf("bytes %d-%d/%s", first, last, tot)
		f2, l2, t2, err := parseContentRange(canon)
		if err != nil || f2 != first || l2 != last || t2 != total {
			t.Fatalf("%q: %q reads back as %d-%d/%d, %v", s, canon, f2, l2, t2, err)
		}
	})
}
