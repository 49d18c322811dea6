package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestListPages: the Lists pages make, rename and delete a list, add a
// followed account by username (not one unfollowed) and remove it,
// and show the list's timeline, its members' posts only; a form from
// another site is refused; another user does not find the list.
func TestListPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob, carol := s.browser(), s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	carol.signUp("carol")
	redirects(t, alice.post("/u/bob/follow", nil), "/u/bob")
	redirects(t, alice.post("/u/carol/follow", nil), "/u/carol")
	expect(t, alice.get("/settings"), http.StatusOK, `href="/lists"`)
	made := alice.post("/lists", url.Values{"action": {"create"}, "title": {"Friends"}})
	if made.status != http.StatusSeeOther || !strings.HasPrefix(made.location, "/lists/") {
		t.Fatalf("making a list: %d %s", made.status, made.location)
	}
	list := made.location
	redirects(t, alice.post(list, url.Values{"action": {"add"}, "username": {"bob"}}), list)
	expect(t, alice.post(list, url.Values{"action": {"add"}, "username": {"alice"}}), http.StatusBadRequest, "follow @alice first")
	bob.post("/post", url.Values{"status": {"bob on the list"}})
	carol.post("/post", url.Values{"status": {"carol off the list"}})
	s.drain()
	page := alice.get(list)
	expect(t, page, http.StatusOK, "<h1>Friends</h1>", "bob on the list", `href="/u/bob"`, `name="action" value="remove"`)
	if strings.Contains(page.body, "carol off the list") {
		t.Error("the list shows a post of someone not on it")
	}
	expect(t, carol.get(list), http.StatusNotFound)
	expect(t, alice.postRaw(list, "action=delete", http.Header{"Sec-Fetch-Site": {"cross-site"}}), http.StatusForbidden)
	redirects(t, alice.post(list, url.Values{"action": {"rename"}, "title": {"Close friends"}}), list)
	expect(t, alice.get("/lists"), http.StatusOK, "Close friends", `action="`+list+`"`)
	bobID := regexp.MustCompile(`name="user" value="(\d+)"`).FindStringSubmatch(page.body)
	if bobID == nil {
		t.Fatal("no remove button with bob's id")
	}
	redirects(t, alice.post(list, url.Values{"action": {"remove"}, "user": {bobID[1]}}), list)
	expect(t, alice.get(list), http.StatusOK, "Members (0)")
	redirects(t, alice.post(list, url.Values{"action": {"delete"}}), "/lists")
	expect(t, alice.get("/lists"), http.StatusOK, "None yet.")
}
