package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/store"
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
	// three failures in, now makes every address wait a moment.
	for range 3 {
		expect(t, login("198.51.100.7", "bob", "wrong-password"), http.StatusUnauthorized)
	}
	expect(t, login("198.51.100.7", "bob", "password1"), http.StatusTooManyRequests, "Too many requests")
	redirects(t, login("198.51.100.8", "carol", "password1"), "/")
	expect(t, login("198.51.100.9", "bob", "password1"), http.StatusTooManyRequests)

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

// TestLoginFloodFair: with the rate limits off, as in a benchmark, one
// address floods the login form with 100 connections of wrong guesses
// (for a name nobody has: an account's own delay would stop guesses at
// it before any hashing); once the hashers are full and the flood's
// excess is refused (503, busy), somebody logging in from another
// address waits only their turn, and gets in.
//
// Not in parallel: the flood takes both cores, and the login it lets
// through must not wait password.MaxWait for them.
func TestLoginFloodFair(t *testing.T) {
	s := newSiteStore(t, redistest.Start(t).URL, httptest.NewServer, mux.Options{
		Proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	}, store.Options{Password: password.Params{Memory: 4096, Time: 1, Threads: 1}}) // a few ms a hash: the flood piles up
	s.browser().signUp("carol")
	flood := s.srv.Client().Transport.(*http.Transport).Clone()
	flood.MaxIdleConnsPerHost = 100
	login := func(c *http.Client, addr, name, pass string) (int, error) {
		req, err := http.NewRequest("POST", s.srv.URL+"/login", strings.NewReader(url.Values{"username": {name}, "password": {pass}}.Encode()))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", addr)
		res, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	full, stop := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			c := &http.Client{Transport: flood}
			for range 30 { // until carol is in; at most 30 rounds each
				status, err := login(c, "198.51.100.7", "nobody", "guess")
				switch {
				case err != nil:
					t.Error(err)
					return
				case status == http.StatusServiceUnavailable:
					once.Do(func() { close(full) })
				case status != http.StatusUnauthorized:
					t.Errorf("a guess of the flood: %d; want 401 or 503", status)
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	flooded := make(chan struct{})
	go func() { wg.Wait(); close(flooded) }()
	select {
	case <-full:
	case <-flooded:
		t.Fatal("the flood never filled the hashers: nothing was refused")
	}
	carol := s.browser()
	r := carol.postRaw("/login", url.Values{"username": {"carol"}, "password": {"password1"}}.Encode(),
		http.Header{"X-Forwarded-For": {"203.0.113.5"}})
	close(stop)
	<-flooded
	if r.status != http.StatusSeeOther || carol.cookie() == "" {
		t.Fatalf("carol's login during the flood: %d, cookie %q; want 303 and a cookie:\n%s", r.status, carol.cookie(), r.body)
	}
}
