package web_test

import (
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
