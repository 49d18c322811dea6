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

var postIDPattern = regexp.MustCompile(`<article class="post" id="p(\d+)"`)

// TestBoostPages: a boost from the action bar of its post shows on the
// booster's follower's home and on the booster's profile as the post,
// "boosted by" its booster; the bar then offers to undo it, which takes
// it away; a followers-only post has no Boost button and is refused.
func TestBoostPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob, carol := s.browser(), s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	carol.signUp("carol")
	redirects(t, carol.post("/u/bob/follow", nil), "/u/bob")
	redirects(t, alice.post("/post", url.Values{"status": {"boost <me>"}}), "/")
	m := postIDPattern.FindStringSubmatch(alice.get("/u/alice").body)
	if m == nil {
		t.Fatal("alice's post is not on her profile")
	}
	path := "/p/" + m[1]
	expect(t, bob.get(path), 200, `action="`+path+`/boost"`, `↻ Boost</button>`)
	back := path + "#p" + m[1] // no Referer sent: the post's page
	redirects(t, bob.post(path+"/boost", nil), back)
	redirects(t, bob.post(path+"/boost", nil), back) // boosted once
	s.drain()
	boosted := `<p class="boosted">↻ boosted by <a href="/u/bob">bob</a></p>`
	expect(t, carol.get("/"), 200, boosted)
	redirects(t, bob.post("/settings", url.Values{"name": {"Bob <B>"}}), "/u/bob")
	boosted = `<p class="boosted">↻ boosted by <a href="/u/bob">Bob &lt;B&gt;</a></p>`
	expect(t, carol.get("/"), 200, boosted, "boost &lt;me&gt;", `href="/u/alice"`)
	expect(t, s.browser().get("/u/bob"), 200, boosted, "boost &lt;me&gt;")
	expect(t, alice.get("/notifications"), 200, `href="/u/bob"><bdi class="name">Bob &lt;B&gt;</bdi> <span class="username">@bob</span>`, `boosted <a href="`+path+`">your post</a>`)
	expect(t, bob.get(path), 200, `action="`+path+`/unboost"`, `↻ Boosted <span class="count">1</span>`)
	redirects(t, bob.post(path+"/unboost", nil), back)
	s.drain()
	if home := carol.get("/").body; strings.Contains(home, "boosted by") || strings.Contains(home, "boost &lt;me&gt;") {
		t.Errorf("carol's home still shows the boost taken back:\n%s", home)
	}
	expect(t, bob.post(path+"/boost", nil), 303)
	expect(t, carol.post("/p/999999/boost", nil), 404)
	redirects(t, alice.post("/post", url.Values{"status": {"for my followers"}, "visibility": {"private"}}), "/")
	s.drain()
	mine := postIDPattern.FindStringSubmatch(alice.get("/u/alice").body)[1]
	redirects(t, carol.post("/u/alice/follow", nil), "/u/alice")
	if page := carol.get("/p/" + mine).body; !strings.Contains(page, "for my followers") || strings.Contains(page, `/p/`+mine+`/boost"`) {
		t.Errorf("a followers-only post's page, to a follower: no Boost button wanted:\n%s", page)
	}
	expect(t, carol.post("/p/"+mine+"/boost", nil), 400, "only public and unlisted posts can be boosted")
}

// TestBoostPageRoundTrips: a home page and a profile that hold boosts
// cost one round trip more than those without (TestPageRoundTrips),
// cold, to read the posts boosted, whatever their number, and the
// profile one more for the display names of their authors (the home
// page reads its authors' names anyway, and theirs with them); none
// warm.
func TestBoostPageRoundTrips(t *testing.T) {
	w := newSite(t)
	reader, booster := w.browser(), w.browser()
	reader.signUp("reader")
	booster.signUp("booster")
	redirects(t, reader.post("/u/booster/follow", nil), "/u/booster")
	for i := range 3 { // more than a page of boosts
		author := w.browser()
		author.signUp(fmt.Sprint("author", i))
		for j := range 4 {
			author.post("/post", url.Values{"status": {fmt.Sprint("post ", 4*i+j)}})
		}
		for _, m := range postIDPattern.FindAllStringSubmatch(author.get(fmt.Sprint("/u/author", i)).body, -1) {
			redirects(t, booster.post("/p/"+m[1]+"/boost", nil), "/p/"+m[1]+"#p"+m[1])
		}
	}
	w.drain()
	expect(t, reader.get("/"), http.StatusOK, "boosted by") // marks the reader seen
	for _, c := range []struct {
		path       string
		cold, warm int64
	}{{"/", 4, 0}, {"/u/booster", 5, 0}} {
		s := newSiteAt(t, w.redis.URL, httptest.NewServer)
		b := s.browser()
		b.setCookie(reader.cookie())
		expect(t, b.get("/u/nobody"), http.StatusNotFound)
		before := s.calls.Calls.Load()
		expect(t, b.get(c.path), http.StatusOK, "post 11", "post 4", "boosted by")
		cold := s.calls.Calls.Load() - before
		before = s.calls.Calls.Load()
		expect(t, b.get(c.path), http.StatusOK, "post 11", "post 4", "boosted by")
		warm := s.calls.Calls.Load() - before
		t.Logf("%s: %d round trips cold, %d warm", c.path, cold, warm)
		if cold > c.cold || warm > c.warm {
			t.Errorf("%s: %d round trips cold, %d warm; want at most %d and %d", c.path, cold, warm, c.cold, c.warm)
		}
	}
}
