package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestDisplayNames: the posts on every page that shows them, the home
// page's greeting and the notifications show the display name an author
// set beside the @handle, escaped (a hostile one is text), and the
// handle alone for someone without one; a post shows a new display name
// as soon as its author sets it, though its fragment was kept.
func TestDisplayNames(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, alice.post("/settings", url.Values{"name": {`<script>alert(1)</script> & "Al"`}}), "/u/alice")
	redirects(t, alice.post("/post", url.Values{"status": {"hello world"}}), "/")
	s.drain()
	pid := regexp.MustCompile(`id="p(\d+)"`).FindStringSubmatch(alice.get("/u/alice").body)[1]
	const aliceNamed = `<a class="author" href="/u/alice"><bdi class="name">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Al&#34;</bdi> <span class="username">@alice</span></a>`
	const bobPlain = `<a class="author" href="/u/bob"><span class="username">@bob</span></a>`
	if r := bob.post("/post", url.Values{"status": {"hi @alice"}, "in_reply_to": {pid}}); r.status != 303 {
		t.Fatalf("bob's reply: %d\n%s", r.status, r.body)
	}
	s.drain()
	for _, path := range []string{"/timeline", "/p/" + pid, "/u/alice"} {
		page := alice.get(path)
		expect(t, page, 200, aliceNamed)
		if strings.Contains(page.body, "<script>") {
			t.Errorf("%s: the display name is not escaped", path)
		}
	}
	expect(t, alice.get("/timeline"), 200, bobPlain)
	expect(t, alice.get("/p/"+pid), 200, bobPlain) // the reply
	expect(t, alice.get("/mentions"), 200, bobPlain)
	expect(t, alice.get("/"), 200, `<h1>Hi, <bdi>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Al&#34;</bdi> <span class="handle">@alice</span></h1>`)
	expect(t, bob.get("/"), 200, `<h1>Hi, bob</h1>`)

	redirects(t, alice.post("/settings", url.Values{"name": {"Alice Liddell"}}), "/u/alice")
	expect(t, bob.get("/timeline"), 200, `<bdi class="name">Alice Liddell</bdi> <span class="username">@alice</span>`)
	expect(t, bob.get("/"), 200, `<h1>Hi, bob</h1>`)
	redirects(t, bob.post("/settings", url.Values{"name": {"Bob"}}), "/u/bob")
	expect(t, bob.get("/"), 200, `<h1>Hi, <bdi>Bob</bdi> <span class="handle">@bob</span></h1>`)
}

// TestNotificationTexts: a notification of a reply or a mention shows
// the post under its author's display name, its content warning a
// closed disclosure as on the timelines; a follow shows no post.
func TestNotificationTexts(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, bob.post("/settings", url.Values{"name": {"Bob & co"}}), "/u/bob")
	redirects(t, bob.post("/u/alice/follow", nil), "/u/alice")
	redirects(t, bob.post("/post", url.Values{"status": {"the plot, @alice"}, "spoiler": {"film <spoilers>"}}), "/")
	redirects(t, bob.post("/post", url.Values{"status": {"plain words for @alice"}}), "/")
	s.drain()
	page := alice.get("/notifications")
	expect(t, page, 200,
		`<bdi class="name">Bob &amp; co</bdi> <span class="username">@bob</span></a>`,
		`<details class="cw"><summary dir="auto">film &lt;spoilers&gt;</summary><div class="body" dir="auto"><p>the plot, `,
		`plain words for`, "followed you")
	notes := strings.Split(page.body, `<article class="note`)[1:]
	if len(notes) != 3 {
		t.Fatalf("%d notifications; want 3:\n%s", len(notes), page.body)
	}
	for i, want := range []string{"plain words for", "the plot", ""} { // newest first; the follow shows no post
		if shows := strings.Contains(notes[i], `<article class="post"`); shows != (want != "") || !strings.Contains(notes[i], want) {
			t.Errorf("notification %d shows a post %v; want %q:\n%s", i, shows, want, notes[i])
		}
	}
}

// TestNotificationsRoundTrips: the notifications page reads its
// notifications and when they were last read (one round trip), then in
// one call their actors' names and display names, what the viewer does
// not see and the posts of mentions and replies (none when the
// client-side cache has them), and marks them read if some were unread
// (one); its navigation shows the unread count cleared without reading
// it. Each case is read by a server of its own, cold but for the session
// (read by a 404 page), but the last, warm, which follows the one
// before on its server. Before the page showed the posts and display
// names it cost 6, 6 and 4 (every visit wrote the read marker, after
// which the session and the count were read uncached).
func TestNotificationsRoundTrips(t *testing.T) {
	w := newSite(t)
	reader := w.browser()
	reader.signUp("reader")
	for i := range 20 {
		author := w.browser()
		author.signUp(fmt.Sprint("author", i))
		author.post("/post", url.Values{"status": {fmt.Sprint("post ", i, " for @reader")}})
	}
	w.drain()
	var s *site
	var b *browser
	for _, c := range []struct {
		name string
		max  int64
	}{{"cold, unread", 3}, {"cold, all read", 2}, {"warm", 1}} {
		if c.name != "warm" {
			s = newSiteAt(t, w.redis.URL, httptest.NewServer)
			b = s.browser()
			b.setCookie(reader.cookie())
			expect(t, b.get("/u/nobody"), http.StatusNotFound)
		}
		before := s.calls.Calls.Load()
		expect(t, b.get("/notifications"), http.StatusOK, "post 19 for", "post 0 for")
		n := s.calls.Calls.Load() - before
		t.Logf("%s: %d round trips", c.name, n)
		if n > c.max {
			t.Errorf("%s: %d round trips; want at most %d", c.name, n, c.max)
		}
	}
}
