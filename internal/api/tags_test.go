package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
)

// TestTagInfo: GET /api/v1/tags/{name} answers the tag as first written,
// in any spelling, with a week of history, today (UTC) first: its posts
// and their distinct authors; a tag nobody used is not found.
func TestTagInfo(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, alice := s.User("alice")
	_, bob := s.User("bob")
	for _, post := range []struct{ token, text string }{{alice, "#Go one"}, {alice, "#go two"}, {bob, "#GO three"}} {
		s.Post(post.token, post.text)
	}
	s.Drain()
	now := time.Now().UTC()
	tag, err := s.Mastodon(&mastodon.Config{AccessToken: bob}).TagInfo(t.Context(), "gO")
	if err != nil {
		t.Fatal(err)
	}
	if tag.Name != "Go" || tag.Following || len(tag.History) != 7 {
		t.Fatalf("tag = %+v; want Go, not followed, 7 days", tag)
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if h := tag.History[0]; !h.Day.Equal(today) || h.Uses != 3 || h.Accounts != 2 {
		t.Fatalf("today = %+v; want %v: 3 uses by 2 accounts", h, today)
	}
	if h := tag.History[6]; !h.Day.Equal(today.AddDate(0, 0, -6)) || h.Uses != 0 || h.Accounts != 0 {
		t.Fatalf("6 days ago = %+v; want none", h)
	}
	for _, name := range []string{"never", "not%20a%20tag"} {
		if r := s.Call(http.MethodGet, "/api/v1/tags/"+name, "", nil); r.Status != http.StatusNotFound {
			t.Fatalf("tag %s: %d %s; want 404", name, r.Status, r.Body)
		}
	}
}

// TestTagsHistoryDecodes: every Tag the API answers (the trends, the
// search) has a week of history whose items are the three strings
// Tusky decodes, and the trends of 10 tags cost at most one round trip
// for all their histories once the trends are read.
func TestTagsHistoryDecodes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	for i := range 10 {
		s.Post(token, fmt.Sprintf("#tag%d", i))
	}
	s.Drain()
	var trends []struct{ History []map[string]any }
	for try := 1; ; try++ { // the trends are kept a second: a slow try reads them again
		s.Call(http.MethodGet, "/api/v1/trends/tags", "", nil)
		before := s.Calls.Calls.Load()
		s.Call(http.MethodGet, "/api/v1/trends/tags", "", nil).Decode(t, &trends)
		calls := s.Calls.Calls.Load() - before
		if calls <= 1 && len(trends) == 10 {
			break
		}
		if try == 5 {
			t.Fatalf("the trends of %d tags cost %d round trips; want 10 tags and at most 1", len(trends), calls)
		}
	}
	var found struct {
		Hashtags []struct{ History []map[string]any }
	}
	s.Call(http.MethodGet, "/api/v2/search?"+url.Values{"q": {"#tag"}, "type": {"hashtags"}}.Encode(), token, nil).Decode(t, &found)
	if len(found.Hashtags) != 10 {
		t.Fatalf("search #tag found %d tags; want 10", len(found.Hashtags))
	}
	for _, tag := range append(trends, found.Hashtags...) {
		if len(tag.History) != 7 {
			t.Fatalf("history of %d days; want 7", len(tag.History))
		}
		for _, day := range tag.History {
			for _, field := range []string{"day", "uses", "accounts"} {
				if v, ok := day[field].(string); !ok || !isInt(v) {
					t.Fatalf("history item %v: %s is not a number in a string", day, field)
				}
			}
		}
		if tag.History[0]["uses"] != "1" || tag.History[0]["accounts"] != "1" {
			t.Fatalf("today = %v; want 1 use by 1 account", tag.History[0])
		}
	}
}

// isInt reports whether s spells an integer.
func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}
