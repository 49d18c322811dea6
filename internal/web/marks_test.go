package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// newestPost returns the id of the first post of a page.
func newestPost(t testing.TB, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<article class="post" id="p(\d+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no post on the page:\n%s", page)
	}
	return m[1]
}

// TestFavouritePages: every post shows its action bar; favouriting from
// a page goes back to it, at the post; the post shows the count to
// everyone, the marked button to its favouriter, who favourited it on
// its page, and the favourite on the Favourites page, and its author is
// notified; a bookmark shows on the Bookmarks page only; a missing post
// is a 404, a visitor is sent to log in; a Referer of another site is
// not followed; the author pins the post to the top of their profile.
func TestFavouritePages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob, visitor := s.browser(), s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, alice.post("/post", url.Values{"status": {"like me"}}), "/")
	s.drain()
	pid := newestPost(t, s.browser().get("/timeline").body)
	expect(t, bob.get("/timeline"), http.StatusOK, `action="/p/`+pid+`/favourite"`, `action="/p/`+pid+`/bookmark"`)
	from := http.Header{"Referer": {s.srv.URL + "/timeline?before=999"}}
	r := bob.postRaw("/p/"+pid+"/favourite", "", from)
	redirects(t, r, "/timeline?before=999#p"+pid)
	redirects(t, bob.postRaw("/p/"+pid+"/bookmark", "", http.Header{"Referer": {"https://elsewhere.example/x"}}), "/p/"+pid+"#p"+pid)
	s.drain()
	expect(t, bob.get("/timeline"), http.StatusOK, `action="/p/`+pid+`/unfavourite"`, `<span class="count">1</span>`, `action="/p/`+pid+`/unbookmark"`)
	expect(t, visitor.get("/timeline"), http.StatusOK, `action="/p/`+pid+`/favourite"`, `<span class="count">1</span>`)
	expect(t, alice.get("/p/"+pid), http.StatusOK, `Favourited by <a href="/u/bob">bob</a>`, "Pin it")
	expect(t, alice.get("/notifications"), http.StatusOK, `favourited <a href="/p/`+pid+`">your post</a>`)
	expect(t, bob.get("/favourites"), http.StatusOK, `id="p`+pid+`"`, "<h1>Favourites</h1>")
	expect(t, bob.get("/bookmarks"), http.StatusOK, `id="p`+pid+`"`, "<h1>Bookmarks</h1>")
	expect(t, alice.get("/favourites"), http.StatusOK, "Nothing yet")
	expect(t, bob.post("/p/99999999/favourite", nil), http.StatusNotFound)
	redirects(t, visitor.post("/p/"+pid+"/favourite", nil), "/")
	redirects(t, bob.post("/p/"+pid+"/unfavourite", nil), "/p/"+pid+"#p"+pid)
	s.drain()
	if page := bob.get("/favourites").body; strings.Contains(page, `id="p`+pid+`"`) {
		t.Errorf("the favourite taken back is still listed:\n%s", page)
	}
	expect(t, bob.get("/p/"+pid), http.StatusOK, `☆ Favourite</button>`)
	if page := bob.get("/p/" + pid).body; strings.Contains(page, "Pin it") || strings.Contains(page, "Favourited by") {
		t.Errorf("bob sees a pin button on alice's post, or a favourite gone:\n%s", page)
	}
	redirects(t, alice.post("/p/"+pid+"/pin", nil), "/p/"+pid+"#p"+pid)
	expect(t, alice.get("/p/"+pid), http.StatusOK, "Unpin it")
	expect(t, visitor.get("/u/alice"), http.StatusOK, `<section class="pinned">`, `<h2>Pinned</h2>`, `id="p`+pid+`"`)
	expect(t, bob.post("/p/"+pid+"/pin", nil), http.StatusBadRequest, "only your own posts")
}

// TestFavouritesPaging: the Favourites page shows a page of posts at a
// time, newest favourite first, with links to the older ones, which
// list them all.
func TestFavouritesPaging(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice := s.browser()
	alice.signUp("alice")
	var ids []string
	for range 22 { // more than a page
		redirects(t, alice.post("/post", url.Values{"status": {"a post"}}), "/")
		ids = append(ids, newestPost(t, alice.get("/u/alice").body))
	}
	for _, id := range ids {
		redirects(t, alice.post("/p/"+id+"/favourite", nil), "/p/"+id+"#p"+id)
	}
	var shown []string
	path := "/favourites"
	for range len(ids) {
		page := alice.get(path).body
		for _, m := range regexp.MustCompile(`<article class="post" id="p(\d+)"`).FindAllStringSubmatch(page, -1) {
			shown = append(shown, m[1])
		}
		older := regexp.MustCompile(`<a class="older" href="([^"]+)"`).FindStringSubmatch(page)
		if older == nil {
			break
		}
		path = strings.ReplaceAll(older[1], "&amp;", "&")
	}
	slices.Reverse(shown)
	if !slices.Equal(shown, ids) {
		t.Errorf("the favourites over their pages, oldest first: %v, want %v", shown, ids)
	}
}
