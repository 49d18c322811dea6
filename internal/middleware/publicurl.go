package middleware

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// PublicURL is the URL a server is reached at (--public-url), which
// every absolute URL it writes begins with: the entities' and the
// instance's in the API, the Link headers, the streams' events.
// Configured (ParsePublicURL), it is also the only host the server
// answers (see PublicURL.Only); the default one (DefaultPublicURL) only
// names the server, and the zero PublicURL takes the scheme and host of
// each request, as the tests' servers on a port of the moment do.
type PublicURL struct {
	origin string // scheme://host[:port], lower case
	host   string // host[:port], as the Host header carries it
	strict bool   // refuse other hosts
}

// ParsePublicURL reads a public URL: http or https, a host (and a port,
// if not the scheme's), and nothing else but a "/" path. Empty is the
// zero PublicURL.
func ParsePublicURL(s string) (PublicURL, error) {
	if s == "" {
		return PublicURL{}, nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return PublicURL{}, fmt.Errorf("%q is not a URL: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Hostname() == "":
		return PublicURL{}, fmt.Errorf("%q is not an http or https URL with a host", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || (u.Path != "" && u.Path != "/"):
		return PublicURL{}, fmt.Errorf("%q has more than a scheme and a host: retwis is served at the root of its host", s)
	case u.Port() != "" && strings.TrimLeft(u.Port(), "0123456789") != "":
		return PublicURL{}, fmt.Errorf("%q has a port that is no number", s)
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return PublicURL{origin: u.Scheme + "://" + host, host: host, strict: true}, nil
}

// String returns the public URL's origin ("https://example.org"), or ""
// for the zero PublicURL.
func (p PublicURL) String() string { return p.origin }

// publicKey is the context key of the PublicURL a request came through.
type publicKey struct{}

// Only returns next behind the public URL: a request is given the URL
// (for Origin), so that no Host header a client makes up reaches a URL
// the server writes, and, if the URL was configured, one sent to another
// host is refused with 421 Misdirected Request (as a server answers a
// request not meant for it). The paths in open (the probes, which load
// balancers and orchestrators call by address) are answered whatever the
// host. The zero PublicURL does nothing.
func (p PublicURL) Only(open []string, next http.Handler) http.Handler {
	if p.origin == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.strict && !strings.EqualFold(r.Host, p.host) && !slices.Contains(open, r.URL.Path) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusMisdirectedRequest)
			fmt.Fprintf(w, "This server answers as %s, not as %q.\n", p.origin, r.Host)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), publicKey{}, p)))
	})
}

// Origin returns the scheme and host that the absolute URLs written for
// r begin with: the public URL's when the server has one (see
// PublicURL.Only); else the scheme r came by (https if Secure) and the
// host it was sent to.
func Origin(r *http.Request) string {
	if p, ok := r.Context().Value(publicKey{}).(PublicURL); ok {
		return p.origin
	}
	scheme := "http"
	if Secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Referrer returns the path and query of the page of this site (of
// Origin) that r came from, as its Referer says (the pages' same-origin
// referrer policy sends it), or else fallback: a local path only, never
// one that a browser would read as another host's ("//host").
func Referrer(r *http.Request, fallback string) string {
	ref, err := url.Parse(r.Referer())
	if err != nil || ref.Scheme+"://"+ref.Host != Origin(r) {
		return fallback
	}
	path := ref.EscapedPath()
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") || strings.HasPrefix(path, "/\\") {
		return fallback
	}
	if ref.RawQuery != "" {
		path += "?" + ref.RawQuery
	}
	return path
}

// Host returns the host (and port) of Origin: the server's domain, as
// the instance entity and account addresses (user@host) name it.
func Host(r *http.Request) string {
	if p, ok := r.Context().Value(publicKey{}).(PublicURL); ok {
		return p.host
	}
	return r.Host
}

// DefaultPublicURL is the public URL of a server listening at addr
// (--addr) when none is configured: http://<addr> (https with TLS), and
// localhost for a server on every interface (":8080"), as `make run`
// opens it. It names the server in what it writes, and refuses no host:
// a server behind a proxy under another name keeps answering, with the
// wrong URLs until --public-url says the right one. On port 0, a port
// of the moment, it is the zero PublicURL.
func DefaultPublicURL(addr string, tls bool) (PublicURL, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return PublicURL{}, fmt.Errorf("the address %q has no port: %w", addr, err)
	}
	if port == "0" {
		return PublicURL{}, nil
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	p, err := ParsePublicURL(scheme + "://" + net.JoinHostPort(host, port))
	p.strict = false
	return p, err
}
