package remote

import (
	"crypto/tls"
	"errors"
	"net/http"
	"time"
)

// statusError is an answer whose status may be retried (transient), after
// its Retry-After.
type statusError struct {
	status string
	after  time.Duration
}

func (e *statusError) Error() string { return e.status }

// transient reports whether an answer's status may change if asked again:
// 408 (the server dropped an idle connection), 429 (too many requests), or
// a 5xx other than 501 (not implemented) and 505 (HTTP version not
// supported).
func transient(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return status >= 500 && status <= 599
}

// retryAfter returns the wait an answer's Retry-After asks for, in
// seconds or as an HTTP date; 0 if none or in the past.
func retryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, ok := digits(v); ok {
		return time.Duration(min(s, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// permanent reports whether a failed request would fail again: a refused
// redirect, or a certificate that does not verify.
func permanent(err error) bool {
	var cv *tls.CertificateVerificationError
	return errors.Is(err, ErrRedirect) || errors.As(err, &cv)
}
