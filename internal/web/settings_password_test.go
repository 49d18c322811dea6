package web_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestChangePassword: with the current password, the password changes,
// the other devices are logged out and this one stays; a wrong current
// password, a short or mistyped new one change nothing.
func TestChangePassword(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	here := s.browser()
	here.signUp("owner")
	elsewhere := s.browser()
	redirects(t, elsewhere.post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), "/")
	before := s.snapshot()
	for _, bad := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"current": {"wrong-one"}, "password": {"new-password"}, "password2": {"new-password"}}, "current password is wrong"},
		{url.Values{"current": {"password1"}, "password": {"short"}, "password2": {"short"}}, "at least 8"},
		{url.Values{"current": {"password1"}, "password": {"new-password"}, "password2": {"new-passw0rd"}}, "do not match"},
	} {
		expect(t, here.post("/settings/password", bad.form), http.StatusBadRequest, bad.want)
	}
	s.assertUnchanged(before)
	redirects(t, here.post("/settings/password", url.Values{"current": {"password1"}, "password": {"new-password"}, "password2": {"new-password"}}),
		"/settings?password=changed")
	expect(t, here.get("/settings?password=changed"), http.StatusOK, "Your password is changed")
	redirects(t, elsewhere.get("/settings"), "/") // logged out there
	expect(t, s.browser().post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), http.StatusUnauthorized)
	redirects(t, s.browser().post("/login", url.Values{"username": {"owner"}, "password": {"new-password"}}), "/")
}
