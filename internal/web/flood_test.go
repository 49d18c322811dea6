package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/web"
)

// The flood tests are not in parallel: a flood takes both cores, and
// the logins it lets through must not wait password.MaxWait for them.

// loopback is the test's proxy, trusted so that X-Forwarded-For names
// the client's address.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// floodParams make a hash take a few milliseconds: a flood piles up.
var floodParams = password.Params{Memory: 8192, Time: 1, Threads: 1}

// flood is many connections sending wrong passwords to the login form,
// each attempt for a name nobody has (so that no account's limit stops
// it before its hash), until stopped.
type flood struct {
	refused chan struct{} // closed by the first attempt answered 503 (busy)
	stop    context.CancelFunc
	done    sync.WaitGroup
	sent    atomic.Int64 // guesses sent
	checked atomic.Int64 // guesses answered 401: their hash done
}

// startFlood starts conns connections spread over addrs client
// addresses (198.51.100.x, 198.51.101.x…); each attempt must be answered
// 401 (its hash done) or 503 (the hashers busy). Stop ends it.
func (s *site) startFlood(t *testing.T, addrs, conns int) *flood {
	tr := s.srv.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	ctx, stop := context.WithCancel(t.Context())
	f := &flood{refused: make(chan struct{}), stop: stop}
	var once sync.Once
	for i := range conns {
		addr := fmt.Sprintf("198.51.%d.%d", 100+i%addrs/250, i%addrs%250)
		f.done.Go(func() {
			c := &http.Client{Transport: tr}
			for ctx.Err() == nil {
				status, err := s.rawLogin(ctx, c, addr, fmt.Sprint("nobody", f.sent.Add(1)), "guess")
				switch {
				case ctx.Err() != nil: // stopped
					return
				case err != nil:
					t.Error(err)
					return
				case status == http.StatusServiceUnavailable:
					once.Do(func() { close(f.refused) })
				case status == http.StatusUnauthorized:
					f.checked.Add(1)
				default:
					t.Errorf("a guess of the flood from %s: %d; want 401 or 503", addr, status)
					return
				}
			}
		})
	}
	return f
}

// Stop ends the flood, its guesses waiting given up, and waits for its
// connections.
func (f *flood) Stop() {
	f.stop()
	f.done.Wait()
}

// rawLogin posts a login form from addr through c, and returns the
// status.
func (s *site) rawLogin(ctx context.Context, c *http.Client, addr, name, pass string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", s.srv.URL+"/login", strings.NewReader(url.Values{"username": {name}, "password": {pass}}.Encode()))
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

// TestLoginFloodFair: with the rate limits off, as in a benchmark, one
// address floods the login form with 100 connections of wrong guesses;
// once the hashers are full and the flood's excess is refused (503,
// busy), somebody logging in from another address, on a browser new to
// the site, waits only their turn, and gets in.
func TestLoginFloodFair(t *testing.T) {
	s := newSiteStore(t, redistest.Start(t).URL, httptest.NewServer, mux.Options{Proxies: loopback},
		store.Options{Password: floodParams})
	s.browser().signUp("carol")
	f := s.startFlood(t, 1, 100)
	select {
	case <-f.refused:
	case <-time.After(10 * time.Second):
		f.Stop()
		t.Fatal("the flood never filled the hashers: nothing was refused")
	}
	carol := s.browser()
	r := carol.postRaw("/login", url.Values{"username": {"carol"}, "password": {"password1"}}.Encode(),
		http.Header{"X-Forwarded-For": {"203.0.113.5"}})
	f.Stop()
	if r.status != http.StatusSeeOther || carol.cookie() == "" {
		t.Fatalf("carol's login during the flood: %d, cookie %q; want 303 and a cookie:\n%s", r.status, carol.cookie(), r.body)
	}
}

// TestLoginDistributedFlood: 200 connections from 100 addresses, each
// address within its allowance, send wrong passwords; while the hashers'
// queue is full of them, 20 people log in on the browsers they logged in
// with before, each from an address of their own: every one gets in,
// and before the flood's addresses have had a turn each, since a known
// device hashes in a lane of its own (in one lane, each person would
// wait for a hash of every address flooding). The flood goes on being
// served meanwhile.
func TestLoginDistributedFlood(t *testing.T) {
	const addrs, people = 100, 20
	hour := func(n int) retwis.Rate { return retwis.Rate{Count: n, Per: time.Hour} }
	s := newSiteStore(t, redistest.Start(t).URL, httptest.NewServer, mux.Options{
		Pages:   web.Options{Limits: web.Limits{Login: hour(10_000), LoginAccount: hour(10), LoginDevice: hour(10)}},
		Proxies: loopback,
	}, store.Options{Password: floodParams})
	browsers := make([]*browser, people)
	for i := range browsers {
		browsers[i] = s.browser()
		browsers[i].signUp(fmt.Sprint("person", i))
		browsers[i].post("/logout", nil)
	}
	f := s.startFlood(t, addrs, 2*addrs)
	defer f.Stop()
	s.waitHashesWaiting(t, addrs)
	checked := f.checked.Load()
	took := make([]time.Duration, people)
	var wg sync.WaitGroup
	for i, b := range browsers {
		wg.Go(func() {
			start := time.Now()
			r := b.postRaw("/login", url.Values{"username": {fmt.Sprint("person", i)}, "password": {"password1"}}.Encode(),
				http.Header{"X-Forwarded-For": {fmt.Sprint("203.0.113.", i)}})
			took[i] = time.Since(start)
			if r.status != http.StatusSeeOther {
				t.Errorf("person%d's login during the flood: %d after %v; want 303:\n%s", i, r.status, took[i], r.body)
			}
		})
	}
	wg.Wait()
	checked = f.checked.Load() - checked
	if checked == 0 || checked >= addrs {
		t.Errorf("%d guesses were checked during the %d logins; want some, and fewer than the %d addresses flooding", checked, people, addrs)
	}
	t.Logf("%d logins in the flood, %d guesses checked meanwhile, the slowest login in %v", people, checked, slices.Max(took))
}

// waitHashesWaiting waits until at least n hashes of unknown clients
// wait for a hasher.
func (s *site) waitHashesWaiting(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		unknown, _ := s.st.Hasher.Waiting()
		if unknown >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d hashes wait; want the flood to pile up %d", unknown, n)
		}
	}
}
