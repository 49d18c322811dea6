package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDeleteAccount: the settings page offers the deletion; a form
// without the box "I understand" ticked, a wrong password, or a form
// from another site, deletes nothing; the right password, ticked,
// logs the browser out and sends it to the account's old profile, which
// says the account is deleted; its name can neither log in nor be
// registered again, and its posts are gone from its followers' pages.
func TestDeleteAccount(t *testing.T) {
	t.Parallel()
	confirmed := url.Values{"password": {"password1"}, "confirm": {"yes"}}
	s := newSite(t)
	owner, other := s.browser(), s.browser()
	owner.signUp("owner")
	other.signUp("other")
	redirects(t, other.post("/u/owner/follow", nil), "/u/owner")
	redirects(t, owner.post("/post", url.Values{"status": {"my last words to @other"}}), "/")
	s.drain()
	expect(t, other.get("/"), 200, "my last words")
	expect(t, owner.get("/settings"), 200, "Delete your account", `action="/settings/delete"`, "cannot be undone",
		`<input name="confirm" type="checkbox" value="yes" required>`)

	before := s.snapshot()
	expect(t, owner.post("/settings/delete", url.Values{"password": {"password1"}}), http.StatusBadRequest,
		"Nothing was deleted: tick the box that says you understand", "Delete your account")
	expect(t, owner.post("/settings/delete", url.Values{"password": {"wrong-one"}, "confirm": {"yes"}}), http.StatusBadRequest,
		"The password is wrong.", "Delete your account")
	for _, h := range []http.Header{{"Sec-Fetch-Site": {"cross-site"}}, {"Origin": {"https://evil.example"}}} {
		expect(t, owner.postRaw("/settings/delete", "password=password1&confirm=yes", h), http.StatusForbidden)
	}
	s.assertUnchanged(before)
	redirects(t, s.browser().post("/settings/delete", confirmed), "/") // logged out: nothing to delete

	r := owner.post("/settings/delete", confirmed)
	redirects(t, r, "/u/owner")
	if c := r.header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
		t.Fatalf("the cookie is not cleared: %q", c)
	}
	expect(t, owner.get("/u/owner"), http.StatusGone, "This account has been deleted.", "reserved until")
	expect(t, other.get("/u/OWNER"), http.StatusGone, "This account has been deleted.")
	redirects(t, owner.get("/settings"), "/")
	expect(t, s.browser().post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), http.StatusUnauthorized)
	expect(t, s.browser().post("/register", url.Values{"username": {"Owner"}, "password": {"password1"}, "password2": {"password1"}}),
		http.StatusConflict, "reserved until")
	s.drain()
	if body := other.get("/").body; strings.Contains(body, "my last words") {
		t.Fatal("the deleted account's post is still on its follower's home page")
	}
	expect(t, other.get("/u/nobody"), http.StatusNotFound)
}
