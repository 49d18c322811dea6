package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// TestRoundTrips: a page of 20 posts by 20 authors costs a few round
// trips to Redis, as a page by one would (no N+1), and none once the
// client-side cache is warm, token included. The data is written
// through another server, as it would be in production: a server reads
// what it wrote itself from Redis for a few seconds (its read-your-writes
// window).
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	writer := newServer(t)
	s := newServerAt(t, writer.RedisURL)
	reader, token := writer.User("reader")
	var post string
	for i := range 20 {
		author, authorToken := writer.User(fmt.Sprint("author", i))
		if err := writer.Store.Follow(t.Context(), reader.ID, author.ID); err != nil {
			t.Fatal(err)
		}
		for range 2 { // more than a page: the last page asks whether older posts exist, uncached
			r := writer.Call(http.MethodPost, "/api/v1/statuses", authorToken, url.Values{"status": {fmt.Sprint("post ", i, " #tag @reader")}})
			var st struct{ ID string }
			r.Decode(t, &st)
			post = st.ID
		}
	}
	writer.Drain()
	// The token's first use is recorded (a write, once a minute), and
	// the home timeline marks its reader seen (once an hour).
	for range 2 {
		s.Call(http.MethodGet, "/api/v1/timelines/home", token, nil)
	}
	for _, path := range []string{"/api/v1/timelines/home", "/api/v1/timelines/public", "/api/v1/timelines/tag/tag",
		"/api/v1/statuses/" + post, "/api/v1/accounts/" + id(reader.ID), "/api/v1/accounts/verify_credentials"} {
		before := s.Calls.Calls.Load()
		r := s.Call(http.MethodGet, path, token, nil)
		cold := s.Calls.Calls.Load() - before
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		before = s.Calls.Calls.Load()
		s.Call(http.MethodGet, path, token, nil)
		warm := s.Calls.Calls.Load() - before
		t.Logf("%s: %d round trips cold, %d warm", path, cold, warm)
		if cold > 8 || warm != 0 {
			t.Errorf("%s: %d round trips cold, %d warm; want at most 8, and 0", path, cold, warm)
		}
	}
}
