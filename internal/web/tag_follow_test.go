package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFollowTag: the tag page's button follows the tag, whose public
// posts then reach the follower's home page; the settings page of the
// tags followed lists it and unfollows it; a visitor logged out has no
// button, and following is refused to them.
func TestFollowTag(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	alice.post("/post", url.Values{"status": {"first #GoLang post"}})
	s.drain()
	expect(t, bob.get("/tag/golang"), http.StatusOK, `action="/tag/GoLang/follow"`)
	if body := s.browser().get("/tag/golang").body; strings.Contains(body, "/follow") {
		t.Error("a visitor logged out is offered to follow the tag")
	}
	redirects(t, bob.post("/tag/golang/follow", nil), "/tag/GoLang")
	expect(t, bob.get("/tag/golang"), http.StatusOK, `action="/tag/GoLang/unfollow"`)
	expect(t, bob.get("/settings/tags"), http.StatusOK, `href="/tag/GoLang"`, `action="/tag/GoLang/unfollow"`)
	alice.post("/post", url.Values{"status": {"a second one #golang"}})
	s.drain()
	expect(t, bob.get("/"), http.StatusOK, "a second one")
	redirects(t, bob.post("/tag/golang/unfollow", url.Values{"next": {"/settings/tags"}}), "/settings/tags")
	expect(t, bob.get("/settings/tags"), http.StatusOK, "None.")
	redirects(t, s.browser().post("/tag/golang/follow", nil), "/") // logged out
}
