package remote

import (
	"fmt"
	"net/http"
	"strings"
)

// identity checks that an answer's body is not coded: a Content-Encoding,
// if any, of identity only. The requests ask for the identity, so that the
// bytes of a range are the file's; a coded answer would pass for them.
func identity(h http.Header) error {
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return fmt.Errorf("%w: Content-Encoding %q, asked for identity", ErrProtocol, v)
			}
		}
	}
	return nil
}
