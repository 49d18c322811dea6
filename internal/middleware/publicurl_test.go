package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/middleware"
)

func TestParsePublicURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://example.org":        "https://example.org",
		"https://Example.ORG/":       "https://example.org",
		"http://example.org:8080":    "http://example.org:8080",
		"https://example.org:443":    "https://example.org",
		"http://example.org:80":      "http://example.org",
		"http://[::1]:80":            "http://[::1]",
		"http://127.0.0.1:8080":      "http://127.0.0.1:8080",
		"":                           "",
		"example.org":                "!",
		"ftp://example.org":          "!",
		"https://":                   "!",
		"http://:80":                 "!", // a port without a host
		"https://:8443":              "!",
		"https://example.org/social": "!",
		"https://example.org/?x":     "!",
		"https://example.org/#x":     "!",
		"https://u:p@example.org":    "!",
		"https://example.org:http":   "!",
		"javascript:alert(1)":        "!",
	} {
		got, err := middleware.ParsePublicURL(in)
		if want == "!" {
			if err == nil {
				t.Errorf("ParsePublicURL(%q) = %q; want an error", in, got)
			}
			continue
		}
		if err != nil || got.String() != want {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestDefaultPublicURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		tls  bool
		want string
	}{
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080"},
		{":8080", false, "http://localhost:8080"},
		{"0.0.0.0:443", true, "https://localhost"},
		{"[::]:8080", false, "http://localhost:8080"},
		{"example.org:8443", true, "https://example.org:8443"},
		{"127.0.0.1:0", false, ""}, // a port of the moment: each request's
	} {
		got, err := middleware.DefaultPublicURL(tc.addr, tc.tls)
		if err != nil || got.String() != tc.want {
			t.Errorf("DefaultPublicURL(%q, %v) = %q, %v; want %q", tc.addr, tc.tls, got, err, tc.want)
		}
	}
	if _, err := middleware.DefaultPublicURL("no-port", false); err == nil {
		t.Error("an address without a port was taken")
	}
}

// TestPublicURLOnly: a configured URL refuses other hosts (421) but on
// the open paths, and gives Origin and Host; the default one refuses
// nobody and gives them too; the zero one gives each request's own.
func TestPublicURLOnly(t *testing.T) {
	t.Parallel()
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, middleware.Origin(r)+" "+middleware.Host(r))
	})
	configured, _ := middleware.ParsePublicURL("https://example.org")
	def, _ := middleware.DefaultPublicURL(":8080", false)
	for _, tc := range []struct {
		name   string
		public middleware.PublicURL
		host   string
		path   string
		status int
		body   string
	}{
		{"configured", configured, "example.org", "/x", 200, "https://example.org example.org"},
		{"configured, host in capitals", configured, "EXAMPLE.org", "/x", 200, "https://example.org example.org"},
		{"another host", configured, "evil.example", "/x", 421, "This server answers as https://example.org"},
		{"another port", configured, "example.org:8080", "/x", 421, "answers as"},
		{"a probe", configured, "10.1.2.3:8080", "/livez", 200, "https://example.org example.org"},
		{"default", def, "evil.example", "/x", 200, "http://localhost:8080 localhost:8080"},
		{"zero", middleware.PublicURL{}, "evil.example", "/x", 200, "http://evil.example evil.example"},
	} {
		r := httptest.NewRequest(http.MethodGet, "http://"+tc.host+tc.path, nil)
		w := httptest.NewRecorder()
		tc.public.Only([]string{"/livez"}, echo).ServeHTTP(w, r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s: %d %q; want %d %q", tc.name, w.Code, w.Body, tc.status, tc.body)
		}
	}
}

// FuzzParsePublicURL: a public URL taken is an http(s) origin that reads
// back as itself.
func FuzzParsePublicURL(f *testing.F) {
	for _, s := range []string{"https://example.org", "http://[::1]:80/", "https://a:b@c", "http://x:0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := middleware.ParsePublicURL(s)
		if err != nil || s == "" {
			return
		}
		o := p.String()
		if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") || strings.Count(o, "/") != 2 {
			t.Fatalf("%q → %q: not an origin", s, o)
		}
		again, err := middleware.ParsePublicURL(o)
		if err != nil || again != p {
			t.Fatalf("%q → %q → %v, %v", s, o, again, err)
		}
	})
}
