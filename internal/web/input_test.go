package web_test

import (
	"strings"
	"testing"
)

// TestStaticListsNothing: /static/ serves its files and lists no
// directory.
func TestStaticListsNothing(t *testing.T) {
	t.Parallel()
	b := newSite(t).browser()
	r := b.get("/static/")
	if r.status != 404 || strings.Contains(r.body, "style.css") {
		t.Errorf("GET /static/: %d %q; want 404 and no listing", r.status, r.body)
	}
	expect(t, b.get("/static/live.js"), 200)
}

// TestContentSecurityPolicy: every page forbids <base> and sends forms
// only to the site.
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	b := newSite(t).browser()
	for _, path := range []string{"/", "/no/such/page", "/timeline"} {
		csp := b.get(path).header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, want)
			}
		}
	}
}
