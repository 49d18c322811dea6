package streaming_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// revokedWithin is how soon a stream must end once its access is taken
// away, on any server.
const revokedWithin = time.Second

// expectClosedWithin checks that the server closes the WebSocket within
// d, saying that its access was revoked.
func expectClosedWithin(t *testing.T, c *websocket.Conn, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the WebSocket was still open %v after its access was taken away", d)
		}
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("the WebSocket ended with %v; want the policy violation of a revoked token", err)
		}
		return
	}
}

// form posts a form of the pages with the session cookie and returns the
// status (redirects are not followed).
func (s *server) form(path, cookie string, values url.Values) int {
	s.T.Helper()
	req := must.Value(http.NewRequestWithContext(s.T.Context(), http.MethodPost, s.URL+path, strings.NewReader(values.Encode())))(s.T)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: retwis.SessionCookie, Value: cookie})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp := must.Value(client.Do(req))(s.T)
	resp.Body.Close()
	return resp.StatusCode
}

// account is a user of TestStreamRevokedEverywhere: their session's
// cookie and an API token.
type account struct {
	user   retwis.User
	cookie string
	token  string
}

// signUp registers name with a session and a token of every scope.
func (s *server) signUp(name string) account {
	s.T.Helper()
	u, cookie, err := s.Store.Register(s.T.Context(), name, "password-"+name)
	must.OK(s.T, err)
	token := must.Value(s.Store.CreateToken(s.T.Context(), u.ID, "", "test", retwis.Scopes{"read", "write", "follow"}))(s.T)
	return account{u, cookie, token}
}

// TestStreamRevokedEverywhere: the streams opened on one server with a
// token or a session end within a second of that access being taken
// away through another server, SSE and WebSocket alike, for each way it
// goes: a token revoked by its app, "log out everywhere", a password
// change, a suspension, an account's deletion. The streams of other
// access stay.
func TestStreamRevokedEverywhere(t *testing.T) {
	t.Parallel()
	one := newServer(t)
	two := newServerAt(t, one.RedisURL)
	mod := two.signUp("moderator")
	must.OK(t, two.Store.SetModerator(t.Context(), retwis.OperatorActor("test"), mod.user.ID, true))
	for _, tc := range []struct {
		name string
		// revoke takes a's access away through two.
		revoke func(t *testing.T, a account)
		token  bool // the token's streams end, not only the session's
	}{
		{"log out everywhere", func(t *testing.T, a account) {
			if st := two.form("/settings/sessions/end", a.cookie, url.Values{"all": {"1"}}); st != http.StatusSeeOther {
				t.Fatalf("log out everywhere: %d", st)
			}
		}, false},
		{"password change", func(t *testing.T, a account) {
			v := url.Values{"current": {"password-" + a.user.Username}, "password": {"a new password 2"}, "password2": {"a new password 2"}}
			if st := two.form("/settings/password", a.cookie, v); st != http.StatusSeeOther {
				t.Fatalf("password change: %d", st)
			}
		}, true},
		{"suspension", func(t *testing.T, a account) {
			if st := two.form("/admin/suspend", mod.cookie, url.Values{"user": {a.user.Username}}); st != http.StatusSeeOther {
				t.Fatalf("suspend: %d", st)
			}
		}, true},
		{"account deletion", func(t *testing.T, a account) {
			if st := two.form("/settings/delete", a.cookie, url.Values{"password": {"password-" + a.user.Username}, "confirm": {"yes"}}); st != http.StatusSeeOther {
				t.Fatalf("delete: %d", st)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := one.signUp(strings.ReplaceAll(tc.name, " ", "_"))
			bySession := one.listen("/api/v1/streaming/user", "", "Cookie", retwis.SessionCookie+"="+a.cookie)
			byToken := one.listen("/api/v1/streaming/public", a.token)
			ws := one.dial("?stream=user", &websocket.DialOptions{Subprotocols: []string{a.token}})
			tc.revoke(t, a)
			bySession.expectEndWithin(revokedWithin)
			if !tc.token { // API tokens are not sessions
				two.Post(a.token, "the token still streams")
				byToken.expectUpdate("the token still streams")
				return
			}
			byToken.expectEndWithin(revokedWithin)
			expectClosedWithin(t, ws, revokedWithin)
		})
	}
}

// TestStreamTokenRevoked: a token its app revokes (POST /oauth/revoke,
// through another server) ends its streams within a second, SSE and
// WebSocket; those of the user's other token stay and carry on.
func TestStreamTokenRevoked(t *testing.T) {
	t.Parallel()
	one := newServer(t)
	two := newServerAt(t, one.RedisURL)
	alice := one.signUp("alice")
	app, secret, err := one.Store.CreateApp(t.Context(), retwis.App{Name: "app", RedirectURIs: []string{"urn:ietf:wg:oauth:2.0:oob"}, Scopes: retwis.Scopes{"read"}})
	must.OK(t, err)
	token := must.Value(one.Store.CreateToken(t.Context(), alice.user.ID, app.ClientID, app.Name, retwis.Scopes{"read"}))(t)
	revoked := one.listen("/api/v1/streaming/user", token)
	ws := one.dial("?stream=public", &websocket.DialOptions{Subprotocols: []string{token}})
	other := one.listen("/api/v1/streaming/user", alice.token)

	r := two.Call("POST", "/oauth/revoke", "", url.Values{"client_id": {app.ClientID}, "client_secret": {secret}, "token": {token}})
	if r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	revoked.expectEndWithin(revokedWithin)
	expectClosedWithin(t, ws, revokedWithin)
	two.Post(alice.token, "still listening")
	other.expectUpdate("still listening")
}
