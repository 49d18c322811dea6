package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/web"
)

// TestLoginAndSignupLimits: login attempts from browsers new to the
// site (no device cookie) beyond the limit of their client address, or
// of the account from any address, and sign-ups
// beyond their address's, are refused with 429 and Retry-After, the
// form kept; the client address comes from X-Forwarded-For only because
// the test's loopback is a trusted proxy; other people are not held up.
func TestLoginAndSignupLimits(t *testing.T) {
	t.Parallel()
	hour := func(n int) retwis.Rate { return retwis.Rate{Count: n, Per: time.Hour} }
	s := newSiteWith(t, redistest.Start(t).URL, httptest.NewServer, mux.Options{
		Pages:   web.Options{Limits: web.Limits{Login: hour(3), LoginAccount: hour(4), Signups: hour(2)}},
		Proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	})
	b := s.browser()
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	login := func(addr, name, pass string) response { // from a browser new to the site: no known device
		return s.browser().postRaw("/login", url.Values{"username": {name}, "password": {pass}}.Encode(), from(addr))
	}
	signUp := func(addr, name string) response {
		return b.postRaw("/register", url.Values{"username": {name}, "password": {"password1"}, "password2": {"password1"}}.Encode(), from(addr))
	}
	redirects(t, signUp("192.0.2.1", "alice"), "/")
	redirects(t, signUp("192.0.2.1", "bob"), "/")
	r := signUp("192.0.2.1", "mallory")
	expect(t, r, http.StatusTooManyRequests, "Too many requests", `value="mallory"`)
	if after, _ := strconv.Atoi(r.header.Get("Retry-After")); after < 1 || after > 3600 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if _, err := s.st.UserByName(t.Context(), "mallory"); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("a refused sign-up made the account: %v", err)
	}
	redirects(t, signUp("192.0.2.2", "carol"), "/") // another address

	// An address guessing: three attempts, then refused even with the
	// right password; carol from elsewhere still logs in. Bob's account,
	// three failures in, now makes every address wait a moment (a
	// second: asked first, before a loaded machine lets it pass).
	for range 3 {
		expect(t, login("198.51.100.7", "bob", "wrong-password"), http.StatusUnauthorized)
	}
	expect(t, login("198.51.100.9", "bob", "password1"), http.StatusTooManyRequests)
	expect(t, login("198.51.100.7", "bob", "password1"), http.StatusTooManyRequests, "Too many requests")
	redirects(t, login("198.51.100.8", "carol", "password1"), "/")

	// One account from many addresses: alice may log in four times, then
	// her account's limit holds from anywhere; others are not held up.
	for i := range 4 {
		redirects(t, login(fmt.Sprint("203.0.113.", i), "ALICE", "password1"), "/")
	}
	expect(t, login("203.0.113.9", "alice", "password1"), http.StatusTooManyRequests)
	redirects(t, login("203.0.113.10", "carol", "password1"), "/")
}

// TestFailedLoginsShown: after failed attempts on their account, the
// owner's home page tells them, once.
func TestFailedLoginsShown(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	owner := s.browser()
	owner.signUp("owner")
	guesser := s.browser()
	for range 2 {
		expect(t, guesser.post("/login", url.Values{"username": {"owner"}, "password": {"not-the-password"}}), http.StatusUnauthorized)
	}
	owner.post("/logout", nil)
	redirects(t, owner.post("/login", url.Values{"username": {"owner"}, "password": {"password1"}}), "/")
	expect(t, owner.get("/"), http.StatusOK, "2 failed attempts to log in to your account since you last logged in")
	if page := owner.get("/"); strings.Contains(page.body, "failed attempts") {
		t.Error("the notice is shown twice")
	}
}

// TestOwnerNotLockedOut: 14 wrong passwords from 14 addresses, each of a
// browser new to the site, use up the account's limit and make its
// next attempts wait, with the default limits; the owner, on the
// browser they logged in with before, logs in at once all the same,
// is told of the attempts, and may change their password (which counts
// against the device's allowance too). On a browser new to the site the
// owner waits like anybody else.
func TestOwnerNotLockedOut(t *testing.T) {
	t.Parallel()
	per5m := func(n int) retwis.Rate { return retwis.Rate{Count: n, Per: 5 * time.Minute} }
	s := newSiteWith(t, redistest.Start(t).URL, httptest.NewServer, mux.Options{
		Pages:   web.Options{Limits: web.Limits{Login: per5m(30), LoginAccount: per5m(10), LoginDevice: per5m(10)}},
		Proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	})
	owner := s.browser()
	owner.signUp("owner")
	owner.post("/logout", nil)
	login := func(b *browser, addr, pass string) response {
		return b.postRaw("/login", url.Values{"username": {"owner"}, "password": {pass}}.Encode(),
			http.Header{"X-Forwarded-For": {addr}})
	}
	refused := 0
	for i := range 14 {
		switch r := login(s.browser(), fmt.Sprint("198.51.100.", i), "wrong-password"); r.status {
		case http.StatusTooManyRequests:
			refused++
		case http.StatusUnauthorized:
		default:
			t.Fatalf("guess %d: %d; want 401 or 429", i, r.status)
		}
	}
	if refused < 10 {
		t.Fatalf("%d of 14 guesses refused; want the account's delay and limit to refuse most", refused)
	}
	expect(t, login(s.browser(), "203.0.113.1", "password1"), http.StatusTooManyRequests)
	redirects(t, login(owner, "203.0.113.2", "password1"), "/")
	expect(t, owner.get("/"), http.StatusOK, "failed attempts to log in to your account since you last logged in")
	redirects(t, owner.post("/settings/password", url.Values{"current": {"password1"}, "password": {"password2"}, "password2": {"password2"}}),
		"/settings?password=changed")
}
