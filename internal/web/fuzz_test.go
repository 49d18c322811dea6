package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

// The nasty cases every fuzzer here starts from.
var nasty = []string{"", "\x00", "\xff\xfe", "\xc0\xaf", "%", "%zz", "a=%00&a=%ff", strings.Repeat("a", 5000),
	"99999999999999999999999999", "-1", "[[[[[[[[[[", "@@@", "#", "é\u0301", "\u202e"}

// FuzzAuthorizeQuery sends any query to the authorization page, as a
// logged-in user and as a visitor, for a registered app: the page never
// fails (no 5xx), and never sends anyone anywhere but the app's own
// redirect URI or the site's own pages.
func FuzzAuthorizeQuery(f *testing.F) {
	s := newSite(f)
	app, _, err := s.st.CreateApp(f.Context(), retwis.App{Name: "fuzzed", RedirectURIs: []string{"https://app.example/cb", retwis.OutOfBand},
		Scopes: retwis.Scopes{"read", "write"}})
	if err != nil {
		f.Fatal(err)
	}
	good := url.Values{"client_id": {app.ClientID}, "redirect_uri": {"https://app.example/cb"}, "response_type": {"code"},
		"scope": {"read"}, "state": {"xyz"}, "code_challenge": {strings.Repeat("A", 43)}, "code_challenge_method": {"S256"}}
	f.Add(good.Encode())
	for _, k := range []string{"client_id", "redirect_uri", "response_type", "scope", "code_challenge", "code_challenge_method"} {
		for _, bad := range nasty {
			q := url.Values{}
			for gk, gv := range good {
				q[gk] = gv
			}
			q.Set(k, bad)
			f.Add(q.Encode())
		}
	}
	f.Add("client_id=" + app.ClientID + "&redirect_uri=https://evil.example/&response_type=code")
	f.Add("client_id=" + app.ClientID + "&client_id=other&redirect_uri=https://app.example/cb&redirect_uri=https://evil.example/")
	user, visitor := s.browser(), s.browser()
	user.signUp("fuzzer")
	f.Fuzz(func(t *testing.T, query string) {
		for _, b := range []*browser{user, visitor} {
			b.t = t
			r := b.get("/oauth/authorize?" + sendable(query))
			if r.status >= 500 {
				t.Fatalf("%q: %d\n%s", query, r.status, r.body)
			}
			if loc := r.location; loc != "" && !strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "https://app.example/cb?") {
				t.Fatalf("%q: sent to %q", query, loc)
			}
		}
	})
}

// sendable percent-encodes the bytes of a query that no client would
// send as they are (controls, spaces, non-ASCII, '#'): the server still
// receives them, decoded.
func sendable(query string) string {
	var b strings.Builder
	for i := range len(query) {
		if c := query[i]; c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// formRoutes are the forms a logged-in user sends that FuzzForms tries.
var formRoutes = []string{"/post", "/settings", "/settings/password", "/report", "/u/fuzzed/block", "/u/fuzzed/mute",
	"/u/fuzzed/follow", "/settings/apps/token", "/settings/apps/revoke", "/settings/sessions/end", "/oauth/authorize", "/p/1/delete"}

// FuzzForms sends any form body to each form a logged-in user has (and
// the edit form of a post of theirs): none fails (no 5xx), whatever the
// encoding, the repeats, the lengths.
func FuzzForms(f *testing.F) {
	s := newSite(f)
	b := s.browser()
	b.signUp("fuzzer")
	s.browser().signUp("fuzzed")
	redirects(f, b.post("/post", url.Values{"status": {"to be edited"}}), "/")
	routes := append(slices.Clone(formRoutes), "/p/"+s.exec("LINDEX", "timeline", "0")+"/edit")
	for i := range routes {
		for _, body := range append([]string{"status=hello", "name=a&bio=b", "post=1&reason=x", "user=fuzzed&reason=y", "id=abc",
			"current=password1&password=x&password2=y", "all=1", "in_reply_to=99999999999999999999&status=x",
			"status=edited&spoiler=cw&idempotency_key=k", "status=%40fuzzed+x&visibility=direct", "status=x&visibility=private&in_reply_to=1",
			"status=x&visibility=%00", "status=x&visibility=public&visibility=direct"}, nasty...) {
			f.Add(uint8(i), body)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		b.t = t
		path := routes[int(route)%len(routes)]
		if path == "/settings/sessions/end" && strings.Contains(body, "all") {
			return // logging out everywhere would end the fuzzer's own session
		}
		if r := b.postRaw(path, body, nil); r.status >= 500 && r.status != http.StatusServiceUnavailable {
			t.Fatalf("%s %q: %d\n%s", path, body, r.status, r.body)
		}
	})
}
