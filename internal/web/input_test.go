package web_test

import (
	"net/url"
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

// TestBidiIsolated: a post's body, its links, a bio and the search
// box's query are isolated from the page around them, so that a
// right-to-left override in them turns nothing outside them around.
func TestBidiIsolated(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("writer")
	rlo := "\u202e"
	redirects(t, b.post("/post", url.Values{"status": {"see " + rlo + "gnp.exe https://a.example/" + rlo + "x #t" + rlo + "ag"}}), "/")
	redirects(t, b.post("/settings", url.Values{"bio": {"bio " + rlo + "reversed"}}), "/u/writer")
	s.drain()
	page := b.get("/u/writer")
	expect(t, page, 200, `<div class="body" dir="auto"><p>see `+rlo+`gnp.exe <a href="https://a.example/`+rlo+`x" rel="nofollow noopener ugc"><bdi>a.example/`+rlo+`x</bdi></a>`,
		`<p class="bio" dir="auto">bio `+rlo+`reversed</p>`)
	expect(t, b.get("/search?q="+url.QueryEscape(rlo+"zz")), 200, "“<bdi>"+rlo+"zz</bdi>”")
}

// TestBlankPostsRefused: a post of characters that show as nothing is
// refused as empty, and nothing is written.
func TestBlankPostsRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("blank")
	before := s.snapshot()
	for _, blank := range []string{"\u2800", "\u3164 \u3164", "\u115f\u1160", "\uffa0\n\u200b\u200c\u200d\u2060\ufeff"} {
		expect(t, b.post("/post", url.Values{"status": {blank}}), 400, "Please write something to post.")
	}
	s.assertUnchanged(before)
}

// TestOnePathPerPost: a post is at /p/<id> alone; another spelling of
// its number (a sign, leading zeros) finds nothing, in paths, in the
// thread's ?after and in the forms that name a post.
func TestOnePathPerPost(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("author")
	redirects(t, b.post("/post", url.Values{"status": {"the one"}}), "/")
	s.drain() // its delivery done, so that the snapshot below does not see it land
	expect(t, b.get("/p/1"), 200, "the one")
	for _, path := range []string{"/p/+1", "/p/%2B1", "/p/01", "/p/0001", "/p/1.0", "/p/0x1"} {
		if r := b.get(path); r.status != 404 || strings.Contains(r.body, "the one") {
			t.Errorf("GET %s: %d; want 404", path, r.status)
		}
	}
	expect(t, b.get("/p/1?after=01"), 400)
	expect(t, b.get("/timeline?before=+5"), 400)
	before := s.snapshot()
	expect(t, b.post("/post", url.Values{"status": {"reply"}, "in_reply_to": {"01"}}), 400, "in_reply_to must be a post number")
	s.assertUnchanged(before)
}
