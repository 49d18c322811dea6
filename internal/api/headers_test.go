package api_test

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// TestSecurityHeaders asks every GET route of the pages and of the API
// (those the OpenAPI document lists, but the long-lived streams) for an
// answer, logged in, and checks the headers every answer must carry:
// no sniffing, no referrer to other sites, no framing, HSTS behind an
// HTTPS proxy (a trusted one: the loopback); a page also its CSP,
// without inline script, and, made for its viewer, no caching.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Proxies: loopback}, nil)
	u, token := s.User("viewer")
	b := newBrowser(t)
	b.send(http.MethodPost, s.URL+"/login", url.Values{"username": {"viewer"}, "password": {"password-viewer"}})
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"hello #tag"}})
	var st struct{ ID string }
	r.Decode(t, &st)
	s.Drain()
	if err := s.Store.SetModerator(t.Context(), "cli:test", u.ID, true); err != nil { // so that /admin is a page
		t.Fatal(err)
	}
	pages := []string{"/", "/u/viewer", "/u/viewer/followers", "/u/viewer/following", "/timeline", "/p/" + st.ID, "/p/" + st.ID + "/edit", "/p/" + st.ID + "/history", "/tag/tag",
		"/mentions", "/direct", "/favourites", "/bookmarks", "/notifications", "/settings", "/settings/apps", "/settings/sessions", "/settings/blocks", "/settings/filters", "/settings/export", "/lists", "/lists/" + st.ID, "/scheduled",
		"/admin", "/tags?q=ta", "/complete/tags?q=ta", "/search?q=vi", "/complete/people?q=vi", "/explore",
		"/oauth/authorize?client_id=x", "/static/style.css", "/livez", "/healthz", "/readyz", "/nothing-here"}
	// Every GET route of the pages is in the list above.
	routes, err := os.ReadFile("../web/server.go")
	if err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer("{$}", "", "{username}", "viewer", "{id}", st.ID, "{tag}", "tag", "/static/", "/static/style.css")
	for _, m := range regexp.MustCompile(`"GET (/[^"]*)"`).FindAllStringSubmatch(string(routes), -1) {
		path := fill.Replace(m[1])
		if !slices.ContainsFunc(pages, func(p string) bool { return p == path || strings.HasPrefix(p, path+"?") }) {
			t.Errorf("GET %s (%s) is not among the pages checked", m[1], path)
		}
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	replace := strings.NewReplacer("{id}", id(u.ID), "{hashtag}", "tag")
	var api []string
	for path, ops := range doc.Paths {
		if _, ok := ops["get"]; ok && !strings.HasPrefix(path, "/api/v1/streaming") {
			api = append(api, replace.Replace(path)+"?q=vi&acct=viewer&id[]=1")
		}
	}
	if len(api) < 30 {
		t.Fatalf("only %d GET routes in the document", len(api))
	}
	for _, path := range append(pages, api...) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-Proto", "https")
		if strings.HasPrefix(path, "/api/") {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if path == "/settings" && resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /settings: %d; the browser is not logged in", resp.StatusCode)
		}
		h := resp.Header
		for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
			"X-Frame-Options": "DENY", "Strict-Transport-Security": "max-age=31536000"} {
			if got := h.Get(name); got != want {
				t.Errorf("GET %s (%d): %s = %q; want %q", path, resp.StatusCode, name, got, want)
			}
		}
		if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "base-uri 'none'") ||
				!strings.Contains(csp, "form-action 'self'") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("GET %s: CSP %q", path, csp)
			}
			if resp.StatusCode == http.StatusOK && h.Get("Cache-Control") != "private, no-store" {
				t.Errorf("GET %s: a page for its viewer has Cache-Control %q", path, h.Get("Cache-Control"))
			}
		}
	}
}

// loopback trusts the test's own address as a proxy: the test's
// requests then come from a trusted proxy.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// TestForwardedHeaders: X-Forwarded-Proto and X-Forwarded-For are
// believed from a trusted proxy only. From any other client, a request
// that says https gets no HSTS (neither from the API nor from its
// streams) and http and ws URLs, and one that names another address
// still counts against its own; from a trusted proxy, HSTS, https and
// wss, and the address it forwards.
func TestForwardedHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		proxies     []netip.Prefix
		scheme, ws  string
		hsts        bool
		otherClient int // the status of a call from another forwarded address, once the first has had its one
	}{
		{"untrusted client", nil, "http://", "ws://", false, http.StatusTooManyRequests},
		{"trusted proxy", loopback, "https://", "wss://", true, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServerWith(t, redistest.Start(t).URL, api.Options{Rate: retwis.Rate{Count: 1, Per: time.Hour}, Proxies: tc.proxies}, nil)
			_, token := s.User("viewer")
			https := func(path, token string, from string) servertest.Reply {
				return s.Call(http.MethodGet, path, token, nil, "X-Forwarded-Proto", "https", "X-Forwarded-For", from)
			}
			var acct struct{ URL string }
			r := https("/api/v1/accounts/verify_credentials", token, "203.0.113.1")
			if r.Decode(t, &acct); !strings.HasPrefix(acct.URL, tc.scheme) {
				t.Errorf("the account's URL is %q; want %s…", acct.URL, tc.scheme)
			}
			var inst struct {
				Configuration struct{ URLs struct{ Streaming string } }
			}
			if https("/api/v2/instance", "", "203.0.113.1").Decode(t, &inst); !strings.HasPrefix(inst.Configuration.URLs.Streaming, tc.ws) {
				t.Errorf("the streaming URL is %q; want %s…", inst.Configuration.URLs.Streaming, tc.ws)
			}
			for _, r := range []servertest.Reply{r, https("/api/v1/streaming/health", "", "203.0.113.1")} {
				if hsts := r.Header.Get("Strict-Transport-Security") != ""; hsts != tc.hsts {
					t.Errorf("HSTS sent: %v; want %v", hsts, tc.hsts)
				}
			}
			if r := https("/api/v1/timelines/public", "", "203.0.113.1"); r.Status != http.StatusOK {
				t.Fatalf("a first call without a token: %d", r.Status)
			}
			if r := https("/api/v1/timelines/public", "", "203.0.113.2"); r.Status != tc.otherClient {
				t.Errorf("a call from another forwarded address: %d; want %d", r.Status, tc.otherClient)
			}
		})
	}
}
