package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// site is a retwis server on a real Redis, for one test: the pages with
// the client API and its streams, as `retwis serve` runs them.
type site struct {
	t     testing.TB
	srv   *httptest.Server
	redis *redistest.Redis    // nil on a cluster
	raw   rueidis.Client      // for setting up and inspecting data
	logs  *syncbuf.Buffer     // what the server logged
	st    *store.Store        // the server's store
	calls *storetest.Counting // the store's round trips to Redis
	api   *servertest.Server  // the same server, for calls of its client API
}

func newSite(t testing.TB) *site {
	r := redistest.Start(t)
	s := newSiteAt(t, r.URL, httptest.NewServer)
	s.redis = r
	return s
}

func newSiteAt(t testing.TB, redisURL string, start func(http.Handler) *httptest.Server) *site {
	return newSiteWith(t, redisURL, start, mux.Options{})
}

// newSiteWith is newSiteAt with server options (the store and the log are
// the site's).
func newSiteWith(t testing.TB, redisURL string, start func(http.Handler) *httptest.Server, opts mux.Options) *site {
	t.Helper()
	return newSiteStore(t, redisURL, start, opts, store.Options{})
}

// newSiteStore is newSiteWith with the store's options too (its log is
// the site's).
func newSiteStore(t testing.TB, redisURL string, start func(http.Handler) *httptest.Server, opts mux.Options, storeOpts store.Options) *site {
	t.Helper()
	ts := servertest.Start(t, redisURL, servertest.Options{Mux: opts, Store: storeOpts, Start: start})
	raw, err := redisconn.Dial(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	return &site{t: t, srv: ts.HTTP, raw: raw, logs: ts.Logs, st: ts.Store, calls: ts.Calls, api: ts}
}

// drain waits until the delivery worker has carried out every job.
func (s *site) drain() {
	s.t.Helper()
	storetest.Drain(s.t, s.st)
}

// remigrate migrates the database again, after a test wrote keys the way
// the original Retwis does.
func (s *site) remigrate() {
	s.t.Helper()
	s.exec("DEL", "schema_version")
	if err := s.st.Migrate(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		s.t.Fatal(err)
	}
}

// do runs a raw Redis command and returns its result, errors included.
func (s *site) do(args ...string) rueidis.RedisResult {
	return s.raw.Do(context.Background(), s.raw.B().Arbitrary(args...).Build())
}

// exec runs a raw Redis command of a test's setup, failing the test on
// an error, and returns its reply as redistest.Do does.
func (s *site) exec(args ...string) string {
	s.t.Helper()
	return redistest.Do(s.t, s.raw, args...)
}

// snapshot returns every key with its value (redistest.Snapshot).
func (s *site) snapshot() map[string]string {
	s.t.Helper()
	return redistest.Snapshot(s.t, s.raw)
}

func (s *site) assertUnchanged(before map[string]string) {
	s.t.Helper()
	after := s.snapshot()
	if len(after) != len(before) {
		s.t.Fatalf("the database changed: %d keys before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			s.t.Fatalf("the database changed: key %s", k)
		}
	}
}

// browser is an HTTP client with its own cookies that does not follow
// redirects, so tests see each 303.
type browser struct {
	t    testing.TB
	site *site
	c    *http.Client
}

func (s *site) browser() *browser {
	jar := must.Value(cookiejar.New(nil))(s.t)
	c := *s.srv.Client() // a copy: the server's client is shared
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: s.t, site: s, c: &c}
}

// response is what a request returned.
type response struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (b *browser) send(req *http.Request) response {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body := must.Value(io.ReadAll(res.Body))(b.t)
	return response{res.StatusCode, res.Header.Get("Location"), string(body), res.Header}
}

func (b *browser) get(path string) response {
	b.t.Helper()
	req := must.Value(http.NewRequest("GET", b.site.srv.URL+path, nil))(b.t)
	return b.send(req)
}

func (b *browser) post(path string, form url.Values) response {
	b.t.Helper()
	return b.postRaw(path, form.Encode(), nil)
}

func (b *browser) postRaw(path, body string, header http.Header) response {
	b.t.Helper()
	req := must.Value(http.NewRequest("POST", b.site.srv.URL+path, strings.NewReader(body)))(b.t)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	return b.send(req)
}

// cookie returns the browser's auth cookie value.
func (b *browser) cookie() string {
	u := must.Value(url.Parse(b.site.srv.URL))(b.t)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == retwis.SessionCookie {
			return c.Value
		}
	}
	return ""
}

// setCookie gives the browser an auth cookie holding token, as one that
// another version of retwis gave it.
func (b *browser) setCookie(token string) {
	u := must.Value(url.Parse(b.site.srv.URL))(b.t)
	b.c.Jar.SetCookies(u, []*http.Cookie{authCookie(token)})
}

// authCookie returns an auth cookie holding secret, for sending by hand.
func authCookie(secret string) *http.Cookie {
	return &http.Cookie{Name: retwis.SessionCookie, Value: secret}
}

// signUp registers name and expects success.
func (b *browser) signUp(name string) {
	b.t.Helper()
	r := b.post("/register", url.Values{"username": {name}, "password": {"password1"}, "password2": {"password1"}})
	if r.status != http.StatusSeeOther || r.location != "/" || b.cookie() == "" {
		b.t.Fatalf("sign up %s: %d %q, cookie %q: %s", name, r.status, r.location, b.cookie(), r.body)
	}
}

// expect checks a response's status and that its body holds every want.
func expect(t testing.TB, r response, status int, want ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body:\n%s", r.status, status, r.body)
	}
	for _, w := range want {
		if !strings.Contains(r.body, w) {
			t.Fatalf("body lacks %q:\n%s", w, r.body)
		}
	}
}

// redirects checks for a 303 to location.
func redirects(t testing.TB, r response, location string) {
	t.Helper()
	if r.status != http.StatusSeeOther || r.location != location {
		t.Fatalf("got %d to %q, want 303 to %q; body:\n%s", r.status, r.location, location, r.body)
	}
}

// redistestStart returns the URL of a fresh Redis.
func redistestStart(t testing.TB) string { return redistest.Start(t).URL }
