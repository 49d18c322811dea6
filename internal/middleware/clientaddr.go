package middleware

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// Proxies are the reverse proxies a server trusts (--trusted-proxies):
// only from a peer among them are the forwarded headers believed,
// X-Forwarded-For for the client's address and X-Forwarded-Proto for
// whether it came over HTTPS; any other peer's are ignored, as anyone
// can send them. None (nil) trusts nobody.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of the proxies a server
// trusts: addresses or CIDR prefixes ("10.0.0.0/8, 127.0.0.1"). Empty
// means none.
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a prefix such as 10.0.0.0/8", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// ClientAddr returns the address of the client that sent r: the peer's,
// or, when the peer is one of the proxies, the nearest address in
// X-Forwarded-For that is not one of them (each proxy appends the
// address it got the request from, so the entries left of the trusted
// ones are the client's word and not believed). IPv6 clients are
// counted by their /64, which one host commonly holds whole.
func (p Proxies) ClientAddr(r *http.Request) string {
	addr, host, ok := peer(r)
	if !ok {
		return host
	}
	if p.trusts(addr) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // a malformed entry: believe nothing further left
			}
			addr = hop.Unmap()
			if !p.trusts(addr) {
				break
			}
		}
	}
	if addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return prefix.String()
	}
	return addr.String()
}

// Secure reports whether the client sent r over HTTPS: r came over TLS
// to this server, or its peer is one of the proxies and the last
// X-Forwarded-Proto value, the nearest proxy's word, is "https". A proxy
// that ends TLS sets the header; the value a client sends through a
// proxy that only appends is left of it and not believed.
func (p Proxies) Secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if len(p) == 0 {
		return false // no proxy to believe: no address to read
	}
	addr, _, ok := peer(r)
	if !ok || !p.trusts(addr) {
		return false
	}
	values := r.Header.Values("X-Forwarded-Proto")
	if len(values) == 0 {
		return false
	}
	last := values[len(values)-1]
	last = last[strings.LastIndexByte(last, ',')+1:]
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// peer returns the address r came from, and its host as given; false
// if that is no address (net/http always gives one).
func peer(r *http.Request) (addr netip.Addr, host string, ok bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || host == "" {
		host = r.RemoteAddr
	}
	addr, err = netip.ParseAddr(host)
	return addr.Unmap(), host, err == nil
}

func (p Proxies) trusts(a netip.Addr) bool {
	for _, prefix := range p {
		if prefix.Contains(a) {
			return true
		}
	}
	return false
}

// entered is what a Stack notes of a request as it enters, in one value
// of its context: whether it came over HTTPS and its client, read once
// through the trusted proxies (the client on first use: most routes
// never ask), and a place for the route that serves it, for the metrics.
type entered struct {
	secure  bool   // Proxies.Secure
	route   string // set by noteRoute once the request is served
	proxies Proxies
	req     *http.Request // as it entered, for addr
	once    sync.Once
	addr    string // Proxies.ClientAddr, once read
}

// enteredKey holds a request's *entered in its context.
type enteredKey struct{}

// enter returns r carrying what the Stack notes of it.
func (s *Stack) enter(r *http.Request) (*http.Request, *entered) {
	e := &entered{secure: s.opts.Proxies.Secure(r), proxies: s.opts.Proxies, req: r}
	return r.WithContext(context.WithValue(r.Context(), enteredKey{}, e)), e
}

// clientAddr returns the client's address, read on the first call.
func (e *entered) clientAddr() string {
	e.once.Do(func() { e.addr = e.proxies.ClientAddr(e.req) })
	return e.addr
}

// ClientAddr returns the address of the client that sent r, as the Stack
// serving r read it through its trusted proxies ([Proxies.ClientAddr]):
// what per-address rate limits count, a session's device shows and the
// password hashers serve in turn. A request no Stack served is read
// trusting no proxy.
func ClientAddr(r *http.Request) string {
	if e, ok := r.Context().Value(enteredKey{}).(*entered); ok {
		return e.clientAddr()
	}
	return Proxies(nil).ClientAddr(r)
}

// Secure reports whether the client sent r over HTTPS, as the Stack
// serving r read it through its trusted proxies ([Proxies.Secure]): what
// decides HSTS, the auth cookie's Secure flag and the scheme of the
// API's absolute URLs. A request no Stack served is read trusting no
// proxy.
func Secure(r *http.Request) bool {
	if e, ok := r.Context().Value(enteredKey{}).(*entered); ok {
		return e.secure
	}
	return Proxies(nil).Secure(r)
}
