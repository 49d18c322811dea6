package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

// TestAppsSettings makes a personal token on the apps page: it is shown
// once, listed with its scopes, and authenticates; revoking it from the
// page ends it at once. A nameless token is refused and nothing is
// written; another user's token cannot be revoked.
func TestAppsSettings(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("owner")
	expect(t, b.get("/settings/apps"), 200, "No app can use your account", `action="/settings/apps/token"`)
	before := s.snapshot()
	expect(t, b.post("/settings/apps/token", url.Values{"name": {"  "}}), 400, "name has 1 to 100 characters")
	expect(t, b.post("/settings/apps/token", url.Values{"name": {strings.Repeat("n", 101)}}), 400, "name has 1 to 100 characters")
	expect(t, b.post("/settings/apps/token", url.Values{"name": {"bot\u202egnp.exe"}}), 400, "direction controls")
	s.assertUnchanged(before)

	page := b.post("/settings/apps/token", url.Values{"name": {"my <bot>"}})
	expect(t, page, 200, `id="new-token"`, "my &lt;bot&gt;", "<code>read</code> <code>write</code> <code>follow</code>", "never")
	m := regexp.MustCompile(`id="new-token">([^<]+)<`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("no token shown")
	}
	token := m[1]
	tok, err := s.st.AuthenticateToken(t.Context(), token)
	if err != nil || tok.User.Username != "owner" || tok.Scopes.String() != "read write follow" {
		t.Fatalf("the personal token authenticates as %+v, %v", tok, err)
	}
	if strings.Contains(b.get("/settings/apps").body, token) {
		t.Error("the token is shown again")
	}
	ids := regexp.MustCompile(`name="id" value="([0-9a-f]+)"`).FindStringSubmatch(b.get("/settings/apps").body)
	if ids == nil {
		t.Fatal("no revoke button")
	}

	other := s.browser()
	other.signUp("other")
	expect(t, other.post("/settings/apps/revoke", url.Values{"id": {ids[1]}}), 404, "no such token")
	if _, err := s.st.AuthenticateToken(t.Context(), token); err != nil {
		t.Fatalf("another user revoked the token: %v", err)
	}
	redirects(t, b.post("/settings/apps/revoke", url.Values{"id": {ids[1]}}), "/settings/apps")
	if _, err := s.st.AuthenticateToken(t.Context(), token); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Fatalf("a revoked token still authenticates: %v", err)
	}
	expect(t, b.get("/settings/apps"), 200, "No app can use your account")
	redirects(t, s.browser().get("/settings/apps"), "/")
}
