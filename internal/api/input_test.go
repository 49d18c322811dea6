package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// TestAppRedirectSchemes: POST /api/v1/apps refuses redirect URIs of
// schemes a browser would run or read locally, and names that turn text
// around, with 422 naming the field; apps' own schemes are taken.
func TestAppRedirectSchemes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, tc := range []struct {
		name, redirect string
		status         int
		field          string // what the error names
	}{
		{"app", "com.example.app://cb", 200, ""},
		{"app", "urn:ietf:wg:oauth:2.0:oob", 200, ""},
		{"app", "https://app.example/cb", 200, ""},
		{"app", "javascript:alert(document.cookie)//", 422, "redirect URI"},
		{"app", "JavaScript:alert(1)", 422, "redirect URI"},
		{"app", "data:text/html,<script>alert(1)</script>", 422, "redirect URI"},
		{"app", "vbscript:msgbox", 422, "redirect URI"},
		{"app", "file:///etc/passwd", 422, "redirect URI"},
		{"app", "app://cb data:,x", 422, "redirect URI"}, // two in one string, as Mastodon takes them
		{"app\u202eevil", "app://cb", 422, "app's name"},
	} {
		r := s.Call(http.MethodPost, "/api/v1/apps", "", url.Values{"client_name": {tc.name}, "redirect_uris": {tc.redirect}})
		if r.Status != tc.status {
			t.Errorf("%q, %q: %d %s; want %d", tc.name, tc.redirect, r.Status, r.Body, tc.status)
			continue
		}
		if tc.status != http.StatusOK && !strings.Contains(r.ErrorMessage(t), tc.field) {
			t.Errorf("%q, %q: %q does not name the %s", tc.name, tc.redirect, r.ErrorMessage(t), tc.field)
		}
	}
}

// TestAuthorizeRefusedScheme: an app registered with a javascript:
// redirect before the rule gets no code sent there; the page says why.
func TestAuthorizeRefusedScheme(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id, _ := s.app("read", "app://cb")
	redistest.Do(t, s.Store.C, "HSET", schema.App(id), schema.FieldAppRedirects, "javascript:alert(1)")
	b := newBrowser(t)
	q := url.Values{"client_id": {id}, "redirect_uri": {"javascript:alert(1)"}, "response_type": {"code"}}
	resp, page := b.send(http.MethodGet, s.URL+"/oauth/authorize?"+q.Encode(), nil)
	if resp.StatusCode < 400 || resp.Header.Get("Location") != "" || !strings.Contains(page, "javascript:") {
		t.Errorf("authorize to javascript: %d, Location %q: %s", resp.StatusCode, resp.Header.Get("Location"), page)
	}
}

// TestBlankStatusRefused: a status of characters that show as nothing
// is refused with 422, and nothing is posted.
func TestBlankStatusRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	u, token := s.User("blank")
	for _, blank := range []string{"\u2800", "\u3164\u3164", "\u115f\u1160", "\uffa0 \u200b\ufeff"} {
		r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {blank}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.ErrorMessage(t), "write something") {
			t.Errorf("status %q: %d %s; want 422", blank, r.Status, r.Body)
		}
	}
	if sum, err := s.Store.Summary(t.Context(), u.ID); err != nil || sum.Posts != 0 {
		t.Errorf("posts after blank statuses: %d, %v; want 0", sum.Posts, err)
	}
}

// TestOneIDPerThing: statuses, accounts and notifications are found by
// their ids alone; a sign or leading zeros is 404 in a path and 422 in a
// parameter.
func TestOneIDPerThing(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	u, token := s.User("author")
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"the one"}})
	var st struct{ ID string }
	r.Decode(t, &st)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/api/v1/statuses/" + st.ID, 200},
		{"/api/v1/statuses/+" + st.ID, 404},
		{"/api/v1/statuses/0" + st.ID, 404},
		{"/api/v1/statuses/%2B" + st.ID + "/context", 404},
		{"/api/v1/accounts/" + id(u.ID), 200},
		{"/api/v1/accounts/+" + id(u.ID), 404},
		{"/api/v1/accounts/0" + id(u.ID) + "/statuses", 404},
		{"/api/v1/notifications/01", 404},
		{"/api/v1/timelines/public?max_id=0" + st.ID, 422},
		{"/api/v1/timelines/public?since_id=0", 200},
	} {
		if r := s.Call(http.MethodGet, tc.path, token, nil); r.Status != tc.status {
			t.Errorf("GET %s: %d %s; want %d", tc.path, r.Status, r.Body, tc.status)
		}
	}
	r = s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"reply"}, "in_reply_to_id": {"+" + st.ID}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.ErrorMessage(t), "in_reply_to_id") {
		t.Errorf("a reply to +%s: %d %s; want 422 naming in_reply_to_id", st.ID, r.Status, r.Body)
	}
}

// TestPublicURL: with a public URL configured, every absolute URL the
// API writes begins with it, whatever the Host header says; a request
// for another host is refused with 421, pages and API alike, but for
// the probes; the default URL of a server (from its address) names it
// and refuses nobody.
func TestPublicURL(t *testing.T) {
	t.Parallel()
	redisURL := redistest.Start(t).URL
	public := must.Value(middleware.ParsePublicURL("https://Social.Example/"))(t)
	s := &server{servertest.Start(t, redisURL, servertest.Options{Mux: mux.Options{PublicURL: public}})}
	_, token := s.User("writer")
	host := func(h string) []string { return []string{"Host", h, "X-Forwarded-Proto", "http"} }
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"hi"}}, host("social.example")...)
	var st struct {
		URL     string
		Account struct{ URL string }
	}
	r.Decode(t, &st)
	if !strings.HasPrefix(st.URL, "https://social.example/p/") || st.Account.URL != "https://social.example/u/writer" {
		t.Errorf("status URLs %q, %q; want https://social.example/…", st.URL, st.Account.URL)
	}
	for _, h := range []string{"social.example", "SOCIAL.EXAMPLE"} {
		r = s.Call(http.MethodGet, "/api/v2/instance", "", nil, host(h)...)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"domain":"social.example"`) ||
			!strings.Contains(string(r.Body), `"wss://social.example"`) {
			t.Errorf("instance for Host %s: %d %s", h, r.Status, r.Body)
		}
	}
	r = s.Call(http.MethodGet, "/api/v1/timelines/public?limit=1", "", nil, host("social.example")...)
	if link := r.Header.Get("Link"); !strings.Contains(link, "<https://social.example/api/v1/timelines/public?") {
		t.Errorf("Link %q", link)
	}
	for _, path := range []string{"/api/v1/instance", "/", "/api/v1/streaming/health", "/static/style.css"} {
		r = s.Call(http.MethodGet, path, "", nil, host("evil.example")...)
		if r.Status != http.StatusMisdirectedRequest || strings.Contains(string(r.Body), "evil.example/") {
			t.Errorf("GET %s for Host evil.example: %d %s; want 421", path, r.Status, r.Body)
		}
	}
	if r := s.Call(http.MethodGet, "/livez", "", nil, host("10.0.0.7:8080")...); r.Status != http.StatusOK {
		t.Errorf("a probe by address: %d", r.Status)
	}

	def := must.Value(middleware.DefaultPublicURL("127.0.0.1:8080", false))(t)
	d := servertest.Start(t, redisURL, servertest.Options{Mux: mux.Options{PublicURL: def}})
	r = d.Call(http.MethodGet, "/api/v2/instance", "", nil, host("evil.example")...)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"domain":"127.0.0.1:8080"`) || strings.Contains(string(r.Body), "evil") {
		t.Errorf("the default URL: %d %s", r.Status, r.Body)
	}
}

// TestNamesRefuseBidi: a display name with a direction control is
// refused with 422 saying so, and the name is kept.
func TestNamesRefuseBidi(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("named")
	r := s.Call(http.MethodPatch, "/api/v1/accounts/update_credentials", token, url.Values{"display_name": {"Ada"}})
	if r.Status != http.StatusOK {
		t.Fatalf("a good name: %d %s", r.Status, r.Body)
	}
	for _, name := range []string{"Ada\u202egnp.exe", "\u2067Ada\u2069", "\u3164"} {
		r = s.Call(http.MethodPatch, "/api/v1/accounts/update_credentials", token, url.Values{"display_name": {name}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.ErrorMessage(t), "Display names") {
			t.Errorf("display name %q: %d %s; want 422", name, r.Status, r.Body)
		}
	}
	r = s.Call(http.MethodGet, "/api/v1/accounts/verify_credentials", token, nil)
	if !strings.Contains(string(r.Body), `"display_name":"Ada"`) {
		t.Errorf("the name after refusals: %s", r.Body)
	}
}
