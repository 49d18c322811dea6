package api_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// app registers an app and returns its client id and secret.
func (s *server) app(scopes, redirect string) (id, secret string) {
	s.T.Helper()
	r := s.Call(http.MethodPost, "/api/v1/apps", "", url.Values{"client_name": {"test app"}, "redirect_uris": {redirect}, "scopes": {scopes}})
	var app struct{ ClientID, ClientSecret string }
	r.Decode(s.T, &struct {
		ClientID     *string `json:"client_id"`
		ClientSecret *string `json:"client_secret"`
	}{&app.ClientID, &app.ClientSecret})
	if r.Status != http.StatusOK || app.ClientID == "" || app.ClientSecret == "" {
		s.T.Fatalf("register app: %d %s", r.Status, r.Body)
	}
	return app.ClientID, app.ClientSecret
}

// authorize has user (signed up and logged in at a new browser) approve
// the app with the query's parameters, and returns the code.
func (s *server) authorize(t *testing.T, user string, q url.Values) string {
	t.Helper()
	q.Set("response_type", "code")
	return newBrowser(t).approve(s.URL, s.URL+"/oauth/authorize?"+q.Encode(), user)
}

// exchange trades a code for a token; it returns the status and the
// token or the OAuth error.
func (s *server) exchange(id, secret, code, verifier string) (int, string) {
	s.T.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {id}, "client_secret": {secret}, "redirect_uri": {redirectURI}}
	if verifier != "" {
		form.Set("code_verifier", verifier)
	}
	r := s.Call(http.MethodPost, "/oauth/token", "", form)
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	r.Decode(s.T, &out)
	return r.Status, out.AccessToken + out.Error
}

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestPKCE: a code given for a PKCE challenge is exchanged only with
// its verifier, and any code only once.
func TestPKCE(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id, secret := s.app("read write", redirectURI)
	verifier := strings.Repeat("v3rifier-", 6)
	users := 0
	ask := func() string {
		users++
		return s.authorize(t, fmt.Sprint("user", users), url.Values{"client_id": {id}, "redirect_uri": {redirectURI},
			"scope": {"read"}, "code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}})
	}
	if status, got := s.exchange(id, secret, ask(), ""); status != http.StatusBadRequest || got != "invalid_grant" {
		t.Errorf("without the verifier: %d %s; want 400 invalid_grant", status, got)
	}
	if status, got := s.exchange(id, secret, ask(), strings.Repeat("wrong-one", 6)); status != http.StatusBadRequest || got != "invalid_grant" {
		t.Errorf("with a wrong verifier: %d %s; want 400 invalid_grant", status, got)
	}
	code := ask()
	status, token := s.exchange(id, secret, code, verifier)
	if status != http.StatusOK || token == "" {
		t.Fatalf("with the verifier: %d %s", status, token)
	}
	if r := s.Call(http.MethodGet, "/api/v1/accounts/verify_credentials", token, nil); r.Status != http.StatusOK {
		t.Errorf("the token does not work: %d %s", r.Status, r.Body)
	}
	if status, got := s.exchange(id, secret, code, verifier); status != http.StatusBadRequest || got != "invalid_grant" {
		t.Errorf("the same code again: %d %s; want 400 invalid_grant", status, got)
	}
	otherID, otherSecret := s.app("read", redirectURI)
	if status, got := s.exchange(otherID, otherSecret, ask(), verifier); status != http.StatusBadRequest || got != "invalid_grant" {
		t.Errorf("another app's code: %d %s; want 400 invalid_grant", status, got)
	}
	if status, got := s.exchange(id, "wrong secret", ask(), verifier); status != http.StatusUnauthorized || got != "invalid_client" {
		t.Errorf("a wrong client secret: %d %s; want 401 invalid_client", status, got)
	}
}

// TestAuthorizeRefuses: requests the authorization page must not send
// back, and those it answers with an OAuth error.
func TestAuthorizeRefuses(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id, _ := s.app("read", redirectURI)
	b := newBrowser(t)
	for _, tc := range []struct {
		name   string
		q      url.Values
		status int
		where  string // the redirect's error, if one
	}{
		{"unknown app", url.Values{"client_id": {"nope"}, "redirect_uri": {redirectURI}, "response_type": {"code"}}, http.StatusNotFound, ""},
		{"unregistered redirect", url.Values{"client_id": {id}, "redirect_uri": {"https://evil.example/"}, "response_type": {"code"}}, http.StatusBadRequest, ""},
		{"scope beyond the app's", url.Values{"client_id": {id}, "redirect_uri": {redirectURI}, "response_type": {"code"}, "scope": {"write"}}, http.StatusFound, "invalid_scope"},
		{"token response type", url.Values{"client_id": {id}, "redirect_uri": {redirectURI}, "response_type": {"token"}}, http.StatusFound, "unsupported_response_type"},
		{"plain PKCE", url.Values{"client_id": {id}, "redirect_uri": {redirectURI}, "response_type": {"code"}, "code_challenge": {challengeOf("x")}, "code_challenge_method": {"plain"}}, http.StatusFound, "invalid_request"},
	} {
		resp, page := b.send(http.MethodGet, s.URL+"/oauth/authorize?"+tc.q.Encode(), nil)
		loc := must.Value(url.Parse(resp.Header.Get("Location")))(t)
		switch {
		case resp.StatusCode != tc.status:
			t.Errorf("%s: %d; want %d (%s)", tc.name, resp.StatusCode, tc.status, page)
		case tc.where != "" && (!strings.HasPrefix(loc.String(), redirectURI) || loc.Query().Get("error") != tc.where):
			t.Errorf("%s: sent to %q; want error %s at the app", tc.name, loc, tc.where)
		}
	}
	// Denying sends access_denied back, and no code.
	b.send(http.MethodPost, s.URL+"/register", url.Values{"username": {"denier"}, "password": {"password-denier"}, "password2": {"password-denier"}})
	resp, _ := b.send(http.MethodPost, s.URL+"/oauth/authorize", url.Values{"client_id": {id}, "redirect_uri": {redirectURI},
		"response_type": {"code"}, "scope": {"read"}, "state": {"s1"}, "decision": {"deny"}})
	loc := must.Value(url.Parse(resp.Header.Get("Location")))(t)
	if q := loc.Query(); q.Get("error") != "access_denied" || q.Get("code") != "" || q.Get("state") != "s1" {
		t.Errorf("denying sends %q", loc)
	}
	// The approval form, sent from another site, is refused.
	req := must.Value(http.NewRequest(http.MethodPost, s.URL+"/oauth/authorize", strings.NewReader(url.Values{"client_id": {id},
		"redirect_uri": {redirectURI}, "response_type": {"code"}, "decision": {"approve"}}.Encode())))(t)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site approval: %d; want 403", resp.StatusCode)
	}
}

// TestScopesEnforced: a token works only on the routes its scopes
// cover; the API's errors are Mastodon's.
func TestScopesEnforced(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, readOnly := s.User("reader", "read")
	_, statusesOnly := s.User("poster", "write:statuses")
	_, full := s.User("full")
	for _, tc := range []struct {
		method, path, token string
		body                any
		status              int
	}{
		{"GET", "/api/v1/timelines/home", readOnly, nil, 200},
		{"POST", "/api/v1/statuses", readOnly, url.Values{"status": {"hi"}}, 403},
		{"POST", "/api/v1/statuses", statusesOnly, url.Values{"status": {"hi"}}, 200},
		{"GET", "/api/v1/timelines/home", statusesOnly, nil, 403},
		{"GET", "/api/v1/accounts/verify_credentials", statusesOnly, nil, 403},
		{"POST", "/api/v1/accounts/1/follow", statusesOnly, nil, 403},
		{"GET", "/api/v1/notifications", full, nil, 200},
		{"GET", "/api/v1/timelines/home", "", nil, 401},
		{"GET", "/api/v1/timelines/home", "1.not-a-token", nil, 401},
		{"GET", "/api/v1/timelines/public", "", nil, 200},
		{"GET", "/api/v1/timelines/public", "garbage", nil, 401},
	} {
		r := s.Call(tc.method, tc.path, tc.token, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s %s with %q: %d %s; want %d", tc.method, tc.path, tc.token, r.Status, r.Body, tc.status)
		} else if r.Status >= 400 {
			r.ErrorMessage(t)
		}
	}
}

// TestRevokedTokenStops: a token revoked by its app (POST /oauth/revoke)
// or by its user (the settings page) stops working at once, also on a
// server that had it cached.
func TestRevokedTokenStops(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	other := newServerAt(t, s.RedisURL)
	id, secret := s.app("read", redirectURI)
	code := s.authorize(t, "revoker", url.Values{"client_id": {id}, "redirect_uri": {redirectURI}, "scope": {"read"}})
	_, token := s.exchange(id, secret, code, "")
	for _, srv := range []*server{s, other} { // warm both servers' caches
		if r := srv.Call(http.MethodGet, "/api/v1/timelines/home", token, nil); r.Status != http.StatusOK {
			t.Fatalf("before revoking: %d %s", r.Status, r.Body)
		}
	}
	otherID, otherSecret := s.app("read", redirectURI)
	if r := s.Call(http.MethodPost, "/oauth/revoke", "", url.Values{"client_id": {otherID}, "client_secret": {otherSecret}, "token": {token}}); r.Status != http.StatusOK {
		t.Fatalf("revoking as another app: %d %s", r.Status, r.Body)
	}
	if r := other.Call(http.MethodGet, "/api/v1/timelines/home", token, nil); r.Status != http.StatusOK {
		t.Fatalf("another app revoked the token: %d", r.Status)
	}
	if r := s.Call(http.MethodPost, "/oauth/revoke", "", url.Values{"client_id": {id}, "client_secret": {secret}, "token": {token}}); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	for i, srv := range []*server{s, other} {
		if r := srv.Call(http.MethodGet, "/api/v1/timelines/home", token, nil); r.Status != http.StatusUnauthorized {
			t.Errorf("after revoking, on server %d: %d %s; want 401", i, r.Status, r.Body)
		}
	}
}

// TestClientCredentials: an app's own token reads public data and is
// refused, with 422, what needs a user.
func TestClientCredentials(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id, secret := s.app("read write", redirectURI)
	r := s.Call(http.MethodPost, "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"read"}})
	var tok struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
	}
	r.Decode(t, &tok)
	if r.Status != http.StatusOK || tok.Scope != "read" {
		t.Fatalf("client_credentials: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodGet, "/api/v1/apps/verify_credentials", tok.AccessToken, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "test app") {
		t.Errorf("apps/verify_credentials: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodGet, "/api/v1/timelines/public", tok.AccessToken, nil); r.Status != http.StatusOK {
		t.Errorf("public timeline with an app token: %d %s", r.Status, r.Body)
	}
	for _, path := range []string{"/api/v1/timelines/home", "/api/v1/streaming/user"} {
		if r := s.Call(http.MethodGet, path, tok.AccessToken, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s with an app token: %d %s; want 422", path, r.Status, r.Body)
		}
	}
	r = s.Call(http.MethodPost, "/oauth/token", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"follow"}})
	if r.Status != http.StatusBadRequest || r.ErrorMessage(t) != "invalid_scope" {
		t.Errorf("a scope beyond the app's: %d %s", r.Status, r.Body)
	}
}

// TestDeletedAccount: once an account is deleted (on the settings page:
// Mastodon's API has no call for it), its tokens answer 401, and its id
// and name 404, to anyone; nobody can follow it.
func TestDeletedAccount(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ann, annToken := s.User("ann")
	_, bobToken := s.User("bob")
	path := "/api/v1/accounts/" + strconv.FormatInt(ann.ID, 10)
	if r := s.Call(http.MethodGet, path, bobToken, nil); r.Status != http.StatusOK {
		t.Fatalf("ann's account before: %d %s", r.Status, r.Body)
	}
	if err := deletion.New(s.Store).DeleteAccount(t.Context(), ann.ID, "password-ann"); err != nil {
		t.Fatal(err)
	}
	if r := s.Call(http.MethodGet, "/api/v1/accounts/verify_credentials", annToken, nil); r.Status != http.StatusUnauthorized {
		t.Errorf("ann's token after: %d %s; want 401", r.Status, r.Body)
	}
	for _, call := range []struct{ method, path string }{
		{http.MethodGet, path}, {http.MethodGet, path + "/statuses"}, {http.MethodGet, "/api/v1/accounts/lookup?acct=ann"},
		{http.MethodPost, path + "/follow"},
	} {
		if r := s.Call(call.method, call.path, bobToken, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s %s after: %d %s; want 404", call.method, call.path, r.Status, r.Body)
		}
	}
}

// TestCustomSchemeLogin: an app of a phone, as Ice Cubes is, registers
// with its own scheme (icecubesapp://) beside another URI, written as
// the paths of Mastodon.py and toot are (with a trailing slash), and
// logs its user in with PKCE through the authorization page; the code
// is sent to the URI the app named, and traded only with it. The token
// then shows the app as Mastodon 4.3 does, and the user as OpenID
// claims.
func TestCustomSchemeLogin(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	const ice, other = "icecubesapp://", "com.example.app:/oauth2redirect"
	r := s.Call(http.MethodPost, "/api/v1/apps/", "", map[string]any{"client_name": "Ice Cubes",
		"redirect_uris": []string{ice + "\n" + other}, "scopes": "read write follow push", "website": "https://github.com/Dimillian/IceCubesApp"})
	var app struct {
		ID           string   `json:"id"`
		ClientID     string   `json:"client_id"`
		ClientSecret string   `json:"client_secret"`
		RedirectURI  string   `json:"redirect_uri"`
		RedirectURIs []string `json:"redirect_uris"`
		Scopes       []string `json:"scopes"`
	}
	r.Decode(t, &app)
	if r.Status != http.StatusOK || app.ClientSecret == "" || app.RedirectURI != ice+"\n"+other || !slices.Equal(app.RedirectURIs, []string{ice, other}) {
		t.Fatalf("register the app: %d %s", r.Status, r.Body)
	}
	verifier := strings.Repeat("ice-cubes-", 5)
	q := url.Values{"client_id": {app.ClientID}, "redirect_uri": {ice}, "response_type": {"code"}, "scope": {"read write follow"},
		"code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}, "state": {"s"}}
	trade := func(user, redirect string) servertest.Reply {
		code := newBrowser(t).approve(s.URL, s.URL+"/oauth/authorize/?"+q.Encode(), user)
		return s.Call(http.MethodPost, "/oauth/token/", "", url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
	}
	if r := trade("skier", other); r.Status != http.StatusBadRequest || r.ErrorMessage(t) != "invalid_grant" {
		t.Errorf("the code traded with the app's other URI: %d %s", r.Status, r.Body)
	}
	q.Set("redirect_uri", ice+"evil")
	if resp, page := newBrowser(t).send(http.MethodGet, s.URL+"/oauth/authorize/?"+q.Encode(), nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a redirect URI the app did not register: %d %s", resp.StatusCode, page)
	}
	q.Set("redirect_uri", ice)
	r = trade("skater", ice)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if r.Decode(t, &tok); r.Status != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("trade the code: %d %s", r.Status, r.Body)
	}
	var shown struct {
		ID, Name, RedirectURI string
		Scopes, RedirectURIs  []string
		ClientSecret          *string `json:"client_secret"`
	}
	r = s.Call(http.MethodGet, "/api/v1/apps/verify_credentials/", tok.AccessToken, nil)
	r.Decode(t, &struct {
		ID           *string   `json:"id"`
		Name         *string   `json:"name"`
		RedirectURI  *string   `json:"redirect_uri"`
		Scopes       *[]string `json:"scopes"`
		RedirectURIs *[]string `json:"redirect_uris"`
		ClientSecret **string  `json:"client_secret"`
	}{&shown.ID, &shown.Name, &shown.RedirectURI, &shown.Scopes, &shown.RedirectURIs, &shown.ClientSecret})
	if r.Status != http.StatusOK || shown.ID != app.ClientID || shown.Name != "Ice Cubes" || shown.RedirectURI != app.RedirectURI ||
		!slices.Equal(shown.RedirectURIs, app.RedirectURIs) || !slices.Equal(shown.Scopes, app.Scopes) || shown.ClientSecret != nil {
		t.Errorf("the app of the token: %d %s", r.Status, r.Body)
	}
	var claims map[string]string
	r = s.Call(http.MethodGet, "/oauth/userinfo/", tok.AccessToken, nil)
	r.Decode(t, &claims)
	if r.Status != http.StatusOK || claims["preferred_username"] != "skater" || claims["iss"] != s.URL+"/" ||
		claims["sub"] != s.URL+"/u/skater" || claims["profile"] != s.URL+"/u/skater" || !strings.HasPrefix(claims["picture"], s.URL+"/") {
		t.Errorf("userinfo: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodPost, "/oauth/userinfo", tok.AccessToken, nil); r.Status != http.StatusOK {
		t.Errorf("userinfo by POST: %d %s", r.Status, r.Body)
	}
}

// TestOAuthMetadata: the server's OAuth metadata has what RFC 8414
// requires (issuer, authorization_endpoint, token_endpoint,
// response_types_supported) and what Mastodon 4.4 adds, its endpoints
// are this server's and answer there, and every scope it lists is one
// an app may ask for.
func TestOAuthMetadata(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var m map[string]any
	r := s.Call(http.MethodGet, "/.well-known/oauth-authorization-server", "", nil)
	r.Decode(t, &m)
	if r.Status != http.StatusOK || m["issuer"] != s.URL+"/" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	for _, field := range []string{"issuer", "authorization_endpoint", "token_endpoint", "response_types_supported", "scopes_supported",
		"grant_types_supported", "code_challenge_methods_supported", "token_endpoint_auth_methods_supported",
		"revocation_endpoint", "userinfo_endpoint", "app_registration_endpoint"} {
		if m[field] == nil {
			t.Errorf("no %s", field)
		}
	}
	list := func(field string) []string {
		var out []string
		for _, v := range m[field].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := list("code_challenge_methods_supported"); !slices.Equal(got, []string{"S256"}) {
		t.Errorf("code_challenge_methods_supported %q", got)
	}
	if got := list("response_types_supported"); !slices.Equal(got, []string{"code"}) {
		t.Errorf("response_types_supported %q", got)
	}
	for _, sc := range list("scopes_supported") {
		if _, err := retwis.ParseScopes(sc); err != nil {
			t.Errorf("scopes_supported lists %q: %v", sc, err)
		}
	}
	for field, call := range map[string]struct {
		method string
		status int
	}{"authorization_endpoint": {http.MethodGet, http.StatusNotFound}, "token_endpoint": {http.MethodPost, http.StatusUnauthorized},
		"revocation_endpoint": {http.MethodPost, http.StatusUnauthorized}, "userinfo_endpoint": {http.MethodGet, http.StatusUnauthorized},
		"app_registration_endpoint": {http.MethodPost, http.StatusUnprocessableEntity}} {
		path, ok := strings.CutPrefix(m[field].(string), s.URL)
		if !ok {
			t.Errorf("%s %q is not on this server", field, m[field])
			continue
		}
		if r := s.Call(call.method, path, "", nil); r.Status != call.status {
			t.Errorf("%s %s (%s): %d; want %d", call.method, path, field, r.Status, call.status)
		}
	}
}
