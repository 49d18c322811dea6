package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// signupRefusal is Mastodon's answer to a refused sign-up.
type signupRefusal struct {
	Error   string
	Details map[string][]struct{ Error, Description string }
}

// appToken registers an app and returns its own token
// (client_credentials) of scopes.
func (s *server) appToken(scopes string) string {
	s.T.Helper()
	id, secret := s.app(scopes, redirectURI)
	r := s.Call(http.MethodPost, "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {scopes}})
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.Decode(s.T, &tok)
	if r.Status != http.StatusOK || tok.AccessToken == "" {
		s.T.Fatalf("client_credentials: %d %s", r.Status, r.Body)
	}
	return tok.AccessToken
}

// signup signs name up through the API with the app token tok.
func (s *server) signup(tok, name, password, agreement string) (int, []byte) {
	s.T.Helper()
	r := s.Call(http.MethodPost, "/api/v1/accounts", tok, url.Values{"username": {name}, "email": {name + "@example.org"},
		"password": {password}, "agreement": {agreement}, "locale": {"en"}, "reason": {"hello"}})
	return r.Status, r.Body
}

// TestSignupFromApp: an app signs a user up with its own token and is
// given the user's token at once, which go-mastodon verifies; the user
// logs in on the pages with the password. A name taken in any case, a
// bad password or e-mail, an agreement not given are refused with
// Mastodon's details; no token answers 401, one without write:accounts
// 403; sign-ups beyond the page's limit per address 429.
func TestSignupFromApp(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Signups: retwis.Rate{Count: 2, Per: time.Hour}}, nil)
	tok := s.appToken("read write")
	r := s.Call(http.MethodPost, "/api/v1/accounts", tok, map[string]any{"username": "Ann", "email": "ann@example.org", "password": "password-Ann", "agreement": true, "locale": "en"})
	var got struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		Scope       string
		CreatedAt   int64 `json:"created_at"`
	}
	r.Decode(t, &got)
	if r.Status != http.StatusOK || got.AccessToken == "" || got.TokenType != "Bearer" || got.Scope != "read write" || got.CreatedAt == 0 {
		t.Fatalf("sign-up: %d %s", r.Status, r.Body)
	}
	me, err := s.Mastodon(&mastodon.Config{AccessToken: got.AccessToken}).GetAccountCurrentUser(t.Context())
	if err != nil || me.Username != "Ann" {
		t.Fatalf("verify_credentials with the new token: %v %+v", err, me)
	}
	if sessions, err := s.Store.Sessions(t.Context(), must.Value(s.Store.UserID(t.Context(), "ann"))(t)); err != nil || len(sessions) != 0 {
		t.Errorf("sessions of the pages after a sign-up from an app: %v, %v; want none", sessions, err)
	}
	if resp, _ := newBrowser(t).send(http.MethodPost, s.URL+"/login", url.Values{"username": {"ann"}, "password": {"password-Ann"}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("login on the pages: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, tc := range []struct{ name, password, email, agreement, field, code string }{
		{"aNN", "password-x", "a@example.org", "true", "username", "ERR_TAKEN"}, // counts against the limit, as on the page
		{"a-b", "password-x", "a@example.org", "true", "username", "ERR_INVALID"},
		{"", "password-x", "a@example.org", "true", "username", "ERR_BLANK"},
		{"cat", "short", "a@example.org", "true", "password", "ERR_INVALID"},
		{"cat", "password-x", "not an address", "true", "email", "ERR_INVALID"},
		{"cat", "password-x", "", "true", "email", "ERR_BLANK"},
		{"cat", "password-x", "a@example.org", "false", "agreement", "ERR_ACCEPTED"},
	} {
		r := s.Call(http.MethodPost, "/api/v1/accounts", tok, url.Values{"username": {tc.name}, "email": {tc.email}, "password": {tc.password}, "agreement": {tc.agreement}})
		var e signupRefusal
		r.Decode(t, &e)
		if d := e.Details[tc.field]; r.Status != http.StatusUnprocessableEntity || len(d) != 1 || d[0].Error != tc.code || d[0].Description == "" || len(e.Error) < 20 {
			t.Errorf("%+v: %d %s; want 422 with %s on %s", tc, r.Status, r.Body, tc.code, tc.field)
		}
	}
	if status, body := s.signup("", "dan", "password-dan", "true"); status != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s; want 401", status, body)
	}
	if status, body := s.signup(s.appToken("read"), "dan", "password-dan", "true"); status != http.StatusForbidden {
		t.Errorf("without write:accounts: %d %s; want 403", status, body)
	}
	if status, body := s.signup(tok, "dan", "password-dan", "true"); status != http.StatusTooManyRequests {
		t.Errorf("beyond the limit of sign-ups: %d %s; want 429", status, body)
	}
	if _, err := s.Store.UserID(t.Context(), "dan"); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("a refused sign-up made an account: %v", err)
	}
}
