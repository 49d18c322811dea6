package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// TestRoundTrips: a page of 20 posts by 20 authors costs a few round
// trips to Redis, as a page by one would (no N+1), and none once the
// client-side cache is warm, token included; the posts' pictures and
// the authors' avatars cost none of their own. The data is written
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
		if i%2 == 0 {
			writer.Call(http.MethodPatch, "/api/v1/accounts/update_credentials", authorToken, multipartBody(t, nil, map[string][]byte{"avatar": photo(t, 16, 16)}))
		}
		for k := range 2 { // more than a page: the last page asks whether older posts exist, uncached
			form := url.Values{"status": {fmt.Sprint("post ", i, " #tag @reader")}}
			if k == 1 {
				var m struct{ ID string }
				upload(t, writer, "/api/v1/media", authorToken, photo(t, 16, 16), nil).Decode(t, &m)
				form.Set("media_ids[]", m.ID)
			}
			r := writer.Call(http.MethodPost, "/api/v1/statuses", authorToken, form)
			var st struct{ ID string }
			r.Decode(t, &st)
			post = st.ID
		}
	}
	writer.Drain()
	if home := s.Call(http.MethodGet, "/api/v1/timelines/home", token, nil); !bytes.Contains(home.Body, []byte(`"media_attachments":[{"id"`)) ||
		!bytes.Contains(home.Body, []byte(`"avatar":"`+s.URL+"/media/")) {
		t.Fatalf("the home timeline shows no pictures or avatars: %s", home.Body)
	}
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

// TestPostRoundTrips: posting a status through the API answers from what
// publishing returns (the post as stored, its author's account, no
// replies), with no read after: the author's state, the post, the writes
// with the count of the author's posts, and the delivery job beside them
// (the first post once more: the token, whose use the warm-up recorded,
// is read again). Repeating a post with its idempotency key reads the
// post made back, with its author and its replies, in one call (two, as
// this server wrote the author's posts a moment ago: those keys are read
// uncached).
func TestPostRoundTrips(t *testing.T) {
	writer := newServer(t)
	s := newServerAt(t, writer.RedisURL)
	poster, token := writer.User("poster")
	s.Call(http.MethodGet, "/api/v1/accounts/verify_credentials", token, nil) // the token's first use, and the account read
	var first string
	for i, c := range []struct {
		key   string
		calls int64
	}{{"", 5}, {"", 4}, {"k1", 4}, {"k1", 4}} {
		var header []string
		if c.key != "" {
			header = []string{"Idempotency-Key", c.key}
		}
		before := s.Calls.Calls.Load()
		r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {fmt.Sprint("post ", i, " #tag")}}, header...)
		calls := s.Calls.Calls.Load() - before
		var st struct {
			ID      string
			Account struct {
				ID            string
				StatusesCount int64 `json:"statuses_count"`
			}
		}
		r.Decode(t, &st)
		if c.key != "" && first == "" {
			first = st.ID
		}
		if c.key != "" && st.ID != first {
			t.Errorf("post %d (key %q) answered post %s; want %s, the first with the key", i, c.key, st.ID, first)
		}
		t.Logf("post %d (key %q): %d round trips", i, c.key, calls)
		if calls > c.calls || st.Account.ID != id(poster.ID) || st.Account.StatusesCount != int64(min(i+1, 3)) {
			t.Errorf("post %d (key %q): %d round trips, answered %+v; want at most %d, by %d with %d posts",
				i, c.key, calls, st, c.calls, poster.ID, min(i+1, 3))
		}
	}
}
