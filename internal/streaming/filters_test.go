package streaming_test

import (
	"net/http"
	"testing"
)

// TestStreamFilters: a hide filter of the reader's leaves the posts it
// matches out of the streams of its context (home: the user stream;
// public: the public and hashtag streams), on both transports' path
// (payload), and the others come through.
func TestStreamFilters(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	s.follow(bobToken, alice.ID)
	if r := s.Call(http.MethodPost, "/api/v2/filters", bobToken, `{"title": "Spoilers", "context": ["home"], "filter_action": "hide",
		"keywords_attributes": [{"keyword": "dragon"}]}`); r.Status != http.StatusOK {
		t.Fatalf("filter: %d %s", r.Status, r.Body)
	}
	s.Drain()
	user := s.listen("/api/v1/streaming/user", bobToken)
	public := s.listen("/api/v1/streaming/public", bobToken)
	s.Post(aliceToken, "a Dragon appears")
	s.Post(aliceToken, "a cat appears")
	s.Drain()
	user.expectUpdate("a cat appears") // the dragon's update left out
	public.expectUpdate("a Dragon appears")
	public.expectUpdate("a cat appears")
}
