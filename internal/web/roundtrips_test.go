package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestPageRoundTrips: each hot page (home, profile, global timeline) is
// one call of the store, which sends everything the page shows (posts by
// 20 authors with their counts of favourites and the reader's marks, one
// favourited and bookmarked, who to follow, the relationship, trends,
// the unread count)
// in the two pipelines of its timeline, cold, and none warm; the profile
// page finds its user by name first. The authors' display names are one
// read more, once the posts say who wrote them: a third round trip cold
// (but on a profile page, whose posts are its user's, read with the
// profile). Warm, the client-side cache answers the session's read, those
// two pipelines and the names: four lookups of it, five for the profile
// page (a lookup costs microseconds, on every page). The data is written
// through another server, as it would be in production, and each page is
// read by a server of its own, so that cold means cold: only the session
// was read before (by a 404 page).
func TestPageRoundTrips(t *testing.T) {
	w := newSite(t)
	reader := w.browser()
	reader.signUp("reader")
	var author0 *browser
	for i := range 20 {
		author := w.browser()
		if i == 0 {
			author0 = author
		}
		author.signUp(fmt.Sprint("author", i))
		redirects(t, author.post("/settings", url.Values{"name": {fmt.Sprint("Author <", i, ">")}}), fmt.Sprint("/u/author", i))
		for range 2 { // more than a page; each mentions the reader: unread notifications
			author.post("/post", url.Values{"status": {fmt.Sprint("post ", i, " #tag @reader")}})
		}
		if i < 10 { // the reader follows half of them, and author0 all: someone to suggest
			redirects(t, reader.post(fmt.Sprintf("/u/author%d/follow", i), nil), fmt.Sprintf("/u/author%d", i))
		}
	}
	for i := 1; i < 20; i++ {
		redirects(t, author0.post(fmt.Sprintf("/u/author%d/follow", i), nil), fmt.Sprintf("/u/author%d", i))
	}
	w.drain()
	expect(t, reader.get("/"), http.StatusOK, "author12") // marks the reader seen, keeps who to follow
	pid := newestPost(t, reader.get("/u/author1").body)   // favourited and bookmarked: counts and marks read with the pages
	for _, action := range []string{"favourite", "bookmark"} {
		redirects(t, reader.post("/p/"+pid+"/"+action, nil), "/p/"+pid+"#p"+pid)
	}
	w.drain()
	// The posts' authors' display names, escaped.
	const named = `<bdi class="name">Author &lt;`
	for _, c := range []struct {
		path                string
		cold, warm, lookups int64
		shows               string
	}{{"/", 3, 0, 4, "Who to follow"}, {"/u/author1", 3, 0, 5, `★ Favourited <span class="count">1</span>`}, {"/timeline", 3, 0, 4, "#tag"}} {
		s := newSiteAt(t, w.redis.URL, httptest.NewServer)
		b := s.browser()
		b.setCookie(reader.cookie())
		expect(t, b.get("/u/nobody"), http.StatusNotFound)
		before := s.calls.Calls.Load()
		expect(t, b.get(c.path), http.StatusOK, "author1", named, c.shows, `class="unread-count"`)
		cold := s.calls.Calls.Load() - before
		before = s.calls.Calls.Load()
		lookups, keys := s.calls.Lookups.Load(), s.calls.Keys.Load()
		expect(t, b.get(c.path), http.StatusOK, "author1", named, c.shows, `class="unread-count"`)
		warm := s.calls.Calls.Load() - before
		lookups, keys = s.calls.Lookups.Load()-lookups, s.calls.Keys.Load()-keys
		t.Logf("%s: %d round trips cold, %d warm; warm: %d cache lookups of %d keys", c.path, cold, warm, lookups, keys)
		if cold > c.cold || warm > c.warm {
			t.Errorf("%s: %d round trips cold, %d warm; want at most %d and %d", c.path, cold, warm, c.cold, c.warm)
		}
		if lookups > c.lookups {
			t.Errorf("%s: %d lookups of the client-side cache warm; want at most %d", c.path, lookups, c.lookups)
		}
	}
}
