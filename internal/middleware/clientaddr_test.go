package middleware_test

import (
	"net/http/httptest"
	"testing"

	"github.com/retwis/retwis/internal/middleware"
)

func TestClientAddr(t *testing.T) {
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
		if got := middleware.ClientAddr(r, trusted); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s; want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "1.2.3"} {
		if _, err := middleware.ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) passed", bad)
		}
	}
}
