package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestRateLimit: calls beyond a token's rate are refused with 429,
// Retry-After and Mastodon's X-RateLimit headers, and write nothing;
// another token has its own quota; calls without a token count against
// their address, registering an app included.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Rate: retwis.Rate{Count: 3, Per: time.Hour}}, nil)
	_, token := s.User("busy")
	_, other := s.User("other")
	for i := range 3 {
		r := s.Call(http.MethodGet, "/api/v1/timelines/home", token, nil)
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Fatalf("call %d: %d, limit %q, remaining %q", i, r.Status, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
		}
		if _, err := time.Parse(time.RFC3339, r.Header.Get("X-RateLimit-Reset")); err != nil {
			t.Errorf("X-RateLimit-Reset %q: %v", r.Header.Get("X-RateLimit-Reset"), err)
		}
	}
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"one too many"}})
	if r.Status != http.StatusTooManyRequests || r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("beyond the rate: %d %v", r.Status, r.Header)
	}
	r.ErrorMessage(t)
	s.Drain()
	if got := statusIDs(t, s.Call(http.MethodGet, "/api/v1/timelines/home", other, nil)); len(got) != 0 {
		t.Errorf("a refused post was written: %v", got)
	}
	for range 2 { // the other token has had one call
		if r := s.Call(http.MethodGet, "/api/v1/timelines/public", other, nil); r.Status != http.StatusOK {
			t.Errorf("another token: %d", r.Status)
		}
	}
	for i := range 4 {
		r := s.Call(http.MethodPost, "/api/v1/apps", "", url.Values{"client_name": {"x"}, "redirect_uris": {redirectURI}})
		if want := map[bool]int{true: http.StatusOK, false: http.StatusTooManyRequests}[i < 3]; r.Status != want {
			t.Errorf("app %d without a token: %d; want %d", i, r.Status, want)
		}
	}
}

// TestRateLimitRedisFull: on a Redis at its memory limit, counting a
// call (a write) is refused; reads go on all the same, uncounted (no
// X-RateLimit headers), with a token or without, and a write is
// answered 503, writing nothing.
func TestRateLimitRedisFull(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Rate: retwis.Rate{Count: 300, Per: time.Hour}}, nil)
	_, token := s.User("reader")
	s.Post(token, "before the database filled up")
	s.Drain()
	raw := must.Value(redisconn.Dial(s.RedisURL))(t)
	defer raw.Close()
	redistest.Do(t, raw, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	redistest.Do(t, raw, "CONFIG", "SET", "maxmemory", "1")
	defer redistest.Do(t, raw, "CONFIG", "SET", "maxmemory", "0")
	for _, call := range []struct{ path, token string }{
		{"/api/v1/timelines/home", token}, {"/api/v1/accounts/verify_credentials", token}, {"/api/v1/timelines/public", ""},
	} {
		r := s.Call(http.MethodGet, call.path, call.token, nil)
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Errorf("GET %s on a full Redis: %d, X-RateLimit-Limit %q; want 200, uncounted:\n%s",
				call.path, r.Status, r.Header.Get("X-RateLimit-Limit"), r.Body)
		}
	}
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"while full"}})
	if r.Status != http.StatusServiceUnavailable {
		t.Errorf("a post on a full Redis: %d; want 503:\n%s", r.Status, r.Body)
	}
	redistest.Do(t, raw, "CONFIG", "SET", "maxmemory", "0")
	if got := statusIDs(t, s.Call(http.MethodGet, "/api/v1/timelines/home", token, nil)); len(got) != 1 {
		t.Errorf("the home timeline after the refused post: %v; want the one post of before", got)
	}
}
