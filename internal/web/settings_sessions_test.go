package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/testkit/must"
)

// endIDs returns the ids of the End buttons of a page.
func endIDs(page string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`action="/settings/sessions/end"><input type="hidden" name="id" value="([0-9a-f]+)"`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// row returns the row of a table of page that holds id.
func row(page, id string) string {
	i := strings.Index(page, `value="`+id+`"`)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(page[:i], "<tr>")
	return page[start:i]
}

// TestSessionsPage lists the viewer's sessions, this one marked, and
// their tokens, each with a button that ends it: ending another
// session logs that browser out, ending a token stops it, ending this
// session logs this browser out; ids that name nothing of the viewer's
// are refused and end nothing.
func TestSessionsPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	here, elsewhere := s.browser(), s.browser()
	here.signUp("owner")
	redirects(t, elsewhere.post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), "/")
	expect(t, here.post("/settings/apps/token", url.Values{"name": {"my script"}}), 200, `id="new-token"`)
	owner, err := s.st.UserByName(t.Context(), "owner")
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := s.st.Tokens(t.Context(), owner.ID)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens: %v, %v", tokens, err)
	}
	expect(t, here.get("/settings"), 200, `href="/settings/sessions"`)
	page := here.get("/settings/sessions")
	expect(t, page, 200, "Go-http-client/1.1", "(this session)", "my script", "Log out everywhere", `name="all"`)
	if page.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("the sessions page has Cache-Control %q", page.header.Get("Cache-Control"))
	}
	mine, theirs := accounts.SessionID(here.cookie()), accounts.SessionID(elsewhere.cookie())
	if ids := endIDs(page.body); len(ids) != 3 || !slices.Contains(ids[:2], mine) || !slices.Contains(ids[:2], theirs) || ids[2] != tokens[0].ID {
		t.Fatalf("End buttons for %v; want both sessions, then the token", ids)
	}
	if !strings.Contains(row(page.body, mine), "(this session)") || strings.Contains(row(page.body, theirs), "(this session)") {
		t.Fatal("the page marks another session as this one")
	}

	other := s.browser()
	other.signUp("other")
	before := s.snapshot()
	for id, status := range map[string]int{"": 400, "nope": 400, strings.Repeat("0", 64): 404, theirs: 404, tokens[0].ID: 404} {
		expect(t, other.post("/settings/sessions/end", url.Values{"id": {id}}), status, "no such session or token")
	}
	s.assertUnchanged(before)

	redirects(t, here.post("/settings/sessions/end", url.Values{"id": {theirs}}), "/settings/sessions")
	redirects(t, elsewhere.get("/settings"), "/")
	redirects(t, here.post("/settings/sessions/end", url.Values{"id": {tokens[0].ID}}), "/settings/sessions")
	if list, err := s.st.Tokens(t.Context(), owner.ID); err != nil || len(list) != 0 {
		t.Fatalf("tokens after ending the one: %v, %v", list, err)
	}
	expect(t, here.get("/settings/sessions"), 200, "No app can use your account")
	redirects(t, here.post("/settings/sessions/end", url.Values{"id": {mine}}), "/")
	if here.cookie() != "" {
		t.Fatal("ending this session left its cookie")
	}
	redirects(t, here.get("/settings/sessions"), "/")
	redirects(t, here.post("/settings/sessions/end", url.Values{"all": {"1"}}), "/")
}

// TestLogOutEverywhere ends every session, this one too, and no API
// token.
func TestLogOutEverywhere(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	here, elsewhere := s.browser(), s.browser()
	here.signUp("owner")
	redirects(t, elsewhere.post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), "/")
	owner := must.Value(s.st.UserByName(t.Context(), "owner"))(t)
	token, err := s.st.CreateToken(t.Context(), owner.ID, "", "bot", retwis.Scopes{"read"})
	if err != nil {
		t.Fatal(err)
	}
	redirects(t, here.post("/settings/sessions/end", url.Values{"all": {"1"}}), "/")
	if here.cookie() != "" {
		t.Fatal("logging out everywhere left this browser's cookie")
	}
	redirects(t, elsewhere.get("/settings"), "/")
	if list, err := s.st.Sessions(t.Context(), owner.ID); err != nil || len(list) != 0 {
		t.Fatalf("sessions after logging out everywhere: %v, %v", list, err)
	}
	if _, err := s.st.AuthenticateToken(t.Context(), token); err != nil {
		t.Fatalf("an API token after logging out everywhere: %v", err)
	}
}

// TestLegacySessionOnPage: the secret of before sessions per device is
// listed as one session, this one when the browser holds it, and ends
// with a logout there, the other sessions staying.
func TestLegacySessionOnPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.exec("HSET", "user:1000", "username", "antirez", "password", "p1pp0p1pp0", "auth", "fea5e81ac8ca77622bed1c2132a021f9")
	s.exec("HSET", "users", "antirez", "1000")
	s.exec("HSET", "auths", "fea5e81ac8ca77622bed1c2132a021f9", "1000")
	s.remigrate()
	old, fresh := s.browser(), s.browser()
	old.setCookie("fea5e81ac8ca77622bed1c2132a021f9")
	redirects(t, fresh.post("/login", url.Values{"username": {"antirez"}, "password": {"p1pp0p1pp0"}}), "/")
	page := old.get("/settings/sessions")
	legacy := row(page.body, accounts.SessionID("fea5e81ac8ca77622bed1c2132a021f9"))
	if !strings.Contains(legacy, "Session from before sessions per device") || !strings.Contains(legacy, "(this session)") {
		t.Fatalf("the old secret's row: %q; want it named, and this session", legacy)
	}
	if ids := endIDs(page.body); len(ids) != 2 {
		t.Fatalf("End buttons for %v; want the old secret and the new session", ids)
	}
	redirects(t, old.post("/logout", nil), "/")
	old.setCookie("fea5e81ac8ca77622bed1c2132a021f9")
	redirects(t, old.get("/settings"), "/")
	page = fresh.get("/settings/sessions")
	expect(t, page, 200, "(this session)")
	if strings.Contains(page.body, "before sessions per device") || len(endIDs(page.body)) != 1 {
		t.Fatal("the old secret is still listed after logging out with it")
	}
	if n := must.Value(s.do("HEXISTS", "user:{1000}", "auth").AsInt64())(t); n != 0 {
		t.Fatal("the old secret is still in the user hash")
	}
}

// TestSessionDevice: a session is listed with what its browser is and
// the client's address.
func TestSessionDevice(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("owner")
	req := must.Value(http.NewRequest("POST", s.srv.URL+"/login", strings.NewReader("username=owner&password=password1")))(t)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	redirects(t, s.browser().send(req), "/")
	expect(t, b.get("/settings/sessions"), 200, "Firefox on Linux", "<code>127.0.0.1</code>")
}
