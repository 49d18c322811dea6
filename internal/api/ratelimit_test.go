package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestRateLimit: calls beyond a token's rate are refused with 429,
// Retry-After and Mastodon's X-RateLimit headers, and write nothing;
// another token has its own quota; calls without a token count against
// their address, registering an app included.
func TestRateLimit(t *testing.T) {
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Rate: retwis.Rate{Count: 3, Per: time.Hour}}, nil)
	_, token := s.user("busy")
	_, other := s.user("other")
	for i := range 3 {
		r := s.call(http.MethodGet, "/api/v1/timelines/home", token, nil)
		if r.status != http.StatusOK || r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
			t.Fatalf("call %d: %d, limit %q, remaining %q", i, r.status, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"))
		}
		if _, err := time.Parse(time.RFC3339, r.header.Get("X-RateLimit-Reset")); err != nil {
			t.Errorf("X-RateLimit-Reset %q: %v", r.header.Get("X-RateLimit-Reset"), err)
		}
	}
	r := s.call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"one too many"}})
	if r.status != http.StatusTooManyRequests || r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Get("Retry-After") == "" {
		t.Fatalf("beyond the rate: %d %v", r.status, r.header)
	}
	r.errorMessage(t)
	s.drain()
	if got := statusIDs(t, s.call(http.MethodGet, "/api/v1/timelines/home", other, nil)); len(got) != 0 {
		t.Errorf("a refused post was written: %v", got)
	}
	for range 2 { // the other token has had one call
		if r := s.call(http.MethodGet, "/api/v1/timelines/public", other, nil); r.status != http.StatusOK {
			t.Errorf("another token: %d", r.status)
		}
	}
	for i := range 4 {
		r := s.call(http.MethodPost, "/api/v1/apps", "", url.Values{"client_name": {"x"}, "redirect_uris": {redirectURI}})
		if want := map[bool]int{true: http.StatusOK, false: http.StatusTooManyRequests}[i < 3]; r.status != want {
			t.Errorf("app %d without a token: %d; want %d", i, r.status, want)
		}
	}
}
