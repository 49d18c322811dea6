// Package safehttp is the HTTP client of the requests a server makes on
// a user's word (Web Push to an endpoint an app gave, link previews):
// unless the operator allows them, it refuses to connect to private,
// loopback, link-local and other non-public addresses, checked at dial
// time, after DNS, so that a name that resolves to one is refused too.
package safehttp

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Options configure a Client.
type Options struct {
	// AllowPrivate lets requests reach private, loopback and link-local
	// addresses (tests, and a push service on the operator's network).
	AllowPrivate bool
	// Timeout bounds one request, from dial to the end of the body.
	Timeout time.Duration
}

// ErrRefused is the error of a dial to an address that is not public.
var ErrRefused = fmt.Errorf("safehttp: address refused: not a public address")

// Client returns an HTTP client whose connections go only to public
// addresses unless opts.AllowPrivate, which follows no redirects and
// gives up after opts.Timeout (10s when zero).
func Client(opts Options) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if !opts.AllowPrivate {
		dialer.Control = refuse
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, unchecked
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   cmp.Or(opts.Timeout, 10*time.Second),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// refuse is the dialer's Control: it runs on the address DNS gave, just
// before the connection, and refuses one that is not public.
func refuse(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("safehttp: %q: %w", address, err)
	}
	if !Public(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrRefused, ap.Addr())
	}
	return nil
}

// Public reports whether a is an address of the public internet: not
// unspecified, loopback, private (RFC 1918, RFC 4193), link-local,
// multicast, shared (RFC 6598, carrier-grade NAT) or otherwise reserved,
// nor an IPv6 address that a NAT64 or 6to4 gateway would take to such an
// IPv4 address.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	if v4, ok := embedded(a); ok { // what a translator or relay would reach
		return Public(v4)
	}
	return true
}

// The IPv6 prefixes that carry an IPv4 address a gateway forwards to:
// NAT64's well-known prefix (RFC 6052), the address in the last 32 bits,
// and 6to4 (RFC 3056), in the 32 bits after the prefix.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// embedded returns the IPv4 address that a, an IPv6 address of NAT64's
// or 6to4's prefix, stands for.
func embedded(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// reserved are the ranges that net/netip's predicates leave out.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}
