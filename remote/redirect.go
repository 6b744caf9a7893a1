package remote

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// withRedirectRules returns a copy of c whose CheckRedirect applies f's
// rules before c's own.
func (f *File) withRedirectRules(c *http.Client) *http.Client {
	cc := *c
	own := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := f.checkRedirect(req, via); err != nil {
			return err
		}
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	return &cc
}

// checkRedirect refuses the redirects that cannot work or that would mix
// sources: more than MaxRedirects (a loop), to a scheme other than http
// and https, from https to http, and, once the first request has pinned
// the URL, to another origin.
func (f *File) checkRedirect(req *http.Request, via []*http.Request) error {
	to, prev := req.URL, via[len(via)-1].URL
	switch {
	case len(via) > MaxRedirects:
		return fmt.Errorf("%w: more than %d redirects, the last to %s", ErrRedirect, MaxRedirects, to.Redacted())
	case to.Scheme != "http" && to.Scheme != "https":
		return fmt.Errorf("%w: to %s: not an http or https URL", ErrRedirect, to.Redacted())
	case prev.Scheme == "https" && to.Scheme == "http":
		return fmt.Errorf("%w: from https to %s", ErrRedirect, to.Redacted())
	case f.pinned && origin(to) != origin(via[0].URL):
		return fmt.Errorf("%w: to %s, another origin than the first answer's %s: every range must come from one server", ErrRedirect, to.Redacted(), origin(via[0].URL))
	}
	return nil
}

// origin returns the scheme, host and port of u (RFC 6454), in lower case
// and with the port explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port))
}

// pinURL makes later requests go where the first one was answered, final,
// with the user and password of the URL given to Open if final has the
// same origin (the client sends them on redirects within it, and on no
// others).
func (f *File) pinURL(given, final *url.URL) {
	if final.String() == given.String() {
		return
	}
	u := *final
	if u.User == nil && origin(&u) == origin(given) {
		u.User = given.User
	}
	f.url = u.String()
}
