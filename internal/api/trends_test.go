package api_test

import (
	"net/http"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestTrendingStatuses reads the trending posts through go-mastodon as
// an app's explore page does: a public post favourited and boosted by
// others comes first, one only favourited second, an unlisted one never;
// a page full has a Link to the next offset; a bad offset is refused;
// the links trend empty.
func TestTrendingStatuses(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	bob := s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	top, second := s.Post(aliceToken, "the top"), s.Post(aliceToken, "the second")
	if _, err := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}).PostStatus(ctx, &mastodon.Toot{Status: "quiet", Visibility: "unlisted"}); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	for _, id := range []string{top, second} {
		if _, err := bob.Favourite(ctx, mastodon.ID(id)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bob.Reblog(ctx, mastodon.ID(top)); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	trends, err := s.Mastodon(&mastodon.Config{}).GetTrendingStatuses(ctx, nil)
	if err != nil || len(trends) != 2 || string(trends[0].ID) != top || string(trends[1].ID) != second {
		t.Fatalf("trending posts = %v, %v; want the top, then the second", trends, err)
	}
	r := s.Call(http.MethodGet, "/api/v1/trends/statuses?limit=1", "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Link") == "" {
		t.Errorf("a full page: %d, Link %q", r.Status, r.Header.Get("Link"))
	}
	if r := s.Call(http.MethodGet, "/api/v1/trends/statuses?offset=-1", "", nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("offset -1: %d %s", r.Status, r.Body)
	}
	var links []any
	s.Call(http.MethodGet, "/api/v1/trends/links", "", nil).Decode(t, &links)
	if len(links) != 0 {
		t.Errorf("trending links: %v", links)
	}
}
