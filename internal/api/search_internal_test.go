package api

import (
	"net/http/httptest"
	"testing"

	"github.com/retwis/retwis"
)

// FuzzLinked: whatever a search's q is, linked names at most one thing,
// a post by a valid id or an account by a username-shaped name, and
// only for a link or an address.
func FuzzLinked(f *testing.F) {
	for _, q := range []string{"alice", "alice@example.com", "@alice@example.com", "https://example.com/p/12", "http://example.com/@alice/12",
		"https://example.com/u/alice", "https://example.com/@alice", "https://other.example/@alice", "https://example.com/@/@", "://@", "@@"} {
		f.Add(q)
	}
	r := httptest.NewRequest("GET", "https://example.com/api/v2/search", nil)
	f.Fuzz(func(t *testing.T, q string) {
		l, isLink := linked(r, q)
		switch {
		case !isLink && l != (link{}):
			t.Fatalf("linked(%q) = %+v for words", q, l)
		case l.post != 0 && l.username != "":
			t.Fatalf("linked(%q) = %+v: two things", q, l)
		case l.post < 0:
			t.Fatalf("linked(%q) = %+v: a negative id", q, l)
		case l.username != "" && !retwis.IsUsernameShaped(l.username):
			t.Fatalf("linked(%q) = %+v: no username", q, l)
		}
	})
}
