package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
	"github.com/retwis/retwis/internal/web"
)

// server is a retwis server (the pages with the API mounted, as `retwis
// serve` runs them) on a real Redis, with a delivery worker.
type server struct {
	t     testing.TB
	redis string // the Redis URL
	srv   *httptest.Server
	st    *store.Store
	calls *storetest.Counting // the store's round trips to Redis
	api   *api.Server
	logs  *syncbuf.Buffer
}

// newServer starts a server on a Redis of its own.
func newServer(t testing.TB) *server {
	return newServerAt(t, redistest.Start(t).URL)
}

// newServerAt starts a server on the Redis (or cluster) at redisURL.
func newServerAt(t testing.TB, redisURL string) *server {
	t.Helper()
	return newServerWith(t, redisURL, api.Options{}, nil)
}

// newServerWith starts a server as newServerAt does, with the API's
// options opts (the store, log and session are the server's; the pages
// trust its Proxies too), its HTTP server first changed by config (if
// not nil).
func newServerWith(t testing.TB, redisURL string, opts api.Options, config func(*httptest.Server)) *server {
	t.Helper()
	return newServerStore(t, redisURL, opts, store.Options{}, config)
}

// newServerStore is newServerWith with the store's options too (its log
// is the server's).
func newServerStore(t testing.TB, redisURL string, opts api.Options, storeOpts store.Options, config func(*httptest.Server)) *server {
	t.Helper()
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	storeOpts.Log = log
	st, calls := storetest.OpenCounting(t, redisURL, storeOpts)
	if err := st.Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	storetest.StartWorker(t, redisURL, store.Options{})
	opts.Store, opts.Log, opts.Session = st, log, web.SessionCredential
	a := api.New(opts)
	h, err := web.New(web.Options{Store: st, Log: log, Mount: a.Mount, Proxies: opts.Proxies})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	if config != nil {
		config(srv)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(a.Close)
	return &server{t: t, redis: redisURL, srv: srv, st: st, calls: calls, api: a, logs: logs}
}

// redisURL is where the server's Redis is, for a second server.
func (s *server) redisURL() string { return s.redis }

// drain waits until every delivery job is done.
func (s *server) drain() { s.t.Helper(); storetest.Drain(s.t, s.st) }

// user signs up a user and returns them with an access token of the
// given scopes (default "read write follow").
func (s *server) user(name string, scopes ...string) (retwis.User, string) {
	s.t.Helper()
	u, _, err := s.st.Register(s.t.Context(), name, "password-"+name)
	if err != nil {
		s.t.Fatal(err)
	}
	sc, err := retwis.ParseScopes(strings.Join(append([]string{}, scopes...), " "))
	if len(scopes) == 0 {
		sc = retwis.Scopes{"read", "write", "follow"}
	}
	if err != nil {
		s.t.Fatal(err)
	}
	tok, err := s.st.CreateToken(s.t.Context(), u.ID, "", "test", sc)
	if err != nil {
		s.t.Fatal(err)
	}
	return u, tok
}

// reply is an API answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// decode decodes the answer's JSON into v, failing the test if it is
// not JSON.
func (r reply) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer %d is not JSON: %v: %s", r.status, err, r.body)
	}
}

// errorMessage returns the "error" of a JSON error answer.
func (r reply) errorMessage(t testing.TB) string {
	t.Helper()
	var e struct{ Error string }
	r.decode(t, &e)
	if e.Error == "" {
		t.Fatalf("answer %d has no error message: %s", r.status, r.body)
	}
	return e.Error
}

// call sends a request with token (if any) and a body: url.Values are
// sent form-encoded, strings as they are with the JSON type, nil as
// nothing.
func (s *server) call(method, path, token string, body any, header ...string) reply {
	s.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case url.Values:
		rd, ct = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case rawBody:
		rd, ct = strings.NewReader(b.body), b.contentType
	case nil:
	default:
		js, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(js), "application/json"
	}
	req, err := http.NewRequestWithContext(s.t.Context(), method, s.srv.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}
