package safehttp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/safehttp"
)

func TestPublic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"8.8.8.8", true},
		{"2606:4700::6810:85e5", true},
		{"127.0.0.1", false},
		{"127.8.9.10", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fe80::1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"100.64.0.1", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"255.255.255.255", false},
		{"198.18.0.1", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:10.0.0.1", false},
		{"::ffff:8.8.8.8", true},
		{"2001:db8::1", false},
		{"64:ff9b::7f00:1", false},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", true},    // NAT64 of 8.8.8.8
		{"2002:c0a8:101::1", false},   // 6to4 of 192.168.1.1
		{"2002:808:808::1", true},     // 6to4 of 8.8.8.8
	} {
		if got := safehttp.Public(netip.MustParseAddr(c.addr)); got != c.public {
			t.Errorf("Public(%s) = %v, want %v", c.addr, got, c.public)
		}
	}
}

// TestClientRefusesLoopback dials a local server by address and by a name
// that DNS (the hosts file) resolves to loopback: both refused unless
// AllowPrivate.
func TestClientRefusesLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, url := range []string{srv.URL, byName} {
		_, err := safehttp.Client(safehttp.Options{}).Get(url)
		if !errors.Is(err, safehttp.ErrRefused) {
			t.Errorf("GET %s: err %v, want ErrRefused", url, err)
		}
		resp, err := safehttp.Client(safehttp.Options{AllowPrivate: true}).Get(url)
		if err != nil {
			t.Fatalf("GET %s allowing private addresses: %v", url, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("GET %s: status %d", url, resp.StatusCode)
		}
	}
}

// TestClientFollowsNoRedirect: a redirect is the answer, not a second
// request (which could lead to an address the first did not name).
func TestClientFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.RedirectHandler("http://169.254.169.254/", http.StatusFound))
	t.Cleanup(srv.Close)
	resp, err := safehttp.Client(safehttp.Options{AllowPrivate: true}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want 302", resp.StatusCode)
	}
}
