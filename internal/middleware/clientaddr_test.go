package middleware_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/testkit/must"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	trusted, err := middleware.ParseProxies("10.0.0.0/8, 127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		peer, xff, want string
	}{
		{"192.0.2.7:1234", "", "192.0.2.7"},
		{"192.0.2.7:1234", "203.0.113.9", "192.0.2.7"},                          // not a proxy: its header is not believed
		{"127.0.0.1:1234", "203.0.113.9", "203.0.113.9"},                        // a trusted proxy
		{"10.1.2.3:1234", "198.51.100.1, 203.0.113.9, 10.9.9.9", "203.0.113.9"}, // two proxies; the leftmost is the client's word
		{"127.0.0.1:1234", "junk, 203.0.113.9", "203.0.113.9"},
		{"127.0.0.1:1234", "203.0.113.9, junk", "127.0.0.1"}, // a malformed hop: nothing further is believed
		{"[2001:db8::1]:1234", "", "2001:db8::/64"},
		{"[::ffff:192.0.2.7]:1234", "", "192.0.2.7"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := trusted.ClientAddr(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s; want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "1.2.3"} {
		if _, err := middleware.ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) passed", bad)
		}
	}
}

// TestSecure: X-Forwarded-Proto is believed from a trusted proxy only,
// and of it the last value, which the nearest proxy wrote; TLS to the
// server itself is HTTPS from anyone.
func TestSecure(t *testing.T) {
	t.Parallel()
	trusted, err := middleware.ParseProxies("10.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		peer  string
		proto []string
		tls   bool
		want  bool
	}{
		{"192.0.2.7:1234", nil, false, false},
		{"192.0.2.7:1234", []string{"https"}, false, false}, // anyone can send the header
		{"192.0.2.7:1234", nil, true, true},
		{"10.1.2.3:1234", []string{"https"}, false, true},
		{"[::1]:1234", []string{"HTTPS"}, false, true},
		{"10.1.2.3:1234", nil, false, false},
		{"10.1.2.3:1234", []string{"http"}, false, false},
		{"10.1.2.3:1234", []string{"https, http"}, false, false}, // the client's word, then the proxy's
		{"10.1.2.3:1234", []string{"http", "https"}, false, true},
		{"10.1.2.3:1234", []string{"https "}, false, true},
		{"bad", []string{"https"}, false, false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		r.Header["X-Forwarded-Proto"] = tc.proto
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if got := trusted.Secure(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-Proto %q, TLS %v: %v; want %v", tc.peer, tc.proto, tc.tls, got, tc.want)
		}
		if got := middleware.Secure(r); got != tc.tls {
			t.Errorf("peer %s, X-Forwarded-Proto %q, TLS %v, no Stack: %v; want %v", tc.peer, tc.proto, tc.tls, got, tc.tls)
		}
	}
}

// TestClientThroughStack: behind a Stack, the handlers' ClientAddr and
// Secure are the Stack's reading through its proxies, and HSTS is sent
// only over HTTPS so read: a client that is not a trusted proxy cannot
// claim HTTPS or another address; one that is, is believed.
func TestClientThroughStack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		proxies string
		addr    string
		secure  bool
	}{
		{"untrusted", "", "127.0.0.1", false},
		{"other proxies", "10.0.0.0/8", "127.0.0.1", false},
		{"trusted", "127.0.0.1", "203.0.113.9", true},
	} {
		proxies, err := middleware.ParseProxies(tc.proxies)
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(t, middleware.Options{Proxies: proxies}, func(_ *middleware.Stack, w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s %v", middleware.ClientAddr(r), middleware.Secure(r))
		})
		res, err := s.do(t.Context(), "GET", "/", "", http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-For": {"203.0.113.9"}})
		if err != nil {
			t.Fatal(err)
		}
		body := must.Value(io.ReadAll(res.Body))(t)
		res.Body.Close()
		if want := fmt.Sprintf("%s %v", tc.addr, tc.secure); string(body) != want {
			t.Errorf("%s: the handler read %q; want %q", tc.name, body, want)
		}
		if hsts := res.Header.Get("Strict-Transport-Security") != ""; hsts != tc.secure {
			t.Errorf("%s: HSTS sent: %v; want %v", tc.name, hsts, tc.secure)
		}
	}
}

// FuzzClientAddr: whatever the peer and the forwarded header, the
// address is a well-formed address (or /64), or the peer's as given when
// it is none (net/http always gives an address), and one a client whose
// peer is not a trusted proxy cannot choose.
func FuzzClientAddr(f *testing.F) {
	for _, seed := range [][2]string{{"127.0.0.1:1", "203.0.113.9"}, {"[::1]:1", "::ffff:1.2.3.4, junk"}, {"192.0.2.1:1", "10.0.0.1"}, {"bad", "\x00"}} {
		f.Add(seed[0], seed[1])
	}
	trusted := must.Value(middleware.ParseProxies("127.0.0.1, ::1"))(f)
	f.Fuzz(func(t *testing.T, peer, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		got := trusted.ClientAddr(r)
		host, _, _ := net.SplitHostPort(peer)
		if _, err := netip.ParseAddr(got); err != nil {
			if _, perr := netip.ParsePrefix(got); perr != nil && got != peer && got != host {
				t.Fatalf("peer %q: %q is neither an address nor the peer as given", peer, got)
			}
		}
		if host, _, err := net.SplitHostPort(peer); err == nil && host != "127.0.0.1" && host != "::1" {
			if a, err := netip.ParseAddr(host); err == nil && a.Is4() && got != a.String() {
				t.Fatalf("an untrusted peer %q chose %q", peer, got)
			}
		}
	})
}
