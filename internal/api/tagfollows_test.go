package api_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestFollowTags follows tags through go-mastodon as an app does: the
// Tag answered is followed, as first written; GET /api/v1/tags/{name}
// tells the follower so, and nobody else; a public post with the tag
// reaches the follower's home timeline; the tags followed come back the
// latest first, two a page by the Link header; an unfollowed tag is no
// longer followed, and no longer listed.
func TestFollowTags(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	alice, bob := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}), s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	s.Post(aliceToken, "first #Go")
	s.Drain()
	for _, name := range []string{"gO", "redis", "lua"} {
		tag, err := bob.TagFollow(ctx, name)
		if err != nil || !tag.Following || len(tag.History) != 7 {
			t.Fatalf("follow %s = %+v, %v", name, tag, err)
		}
		if name == "gO" && tag.Name != "Go" {
			t.Errorf("followed %q; want Go, as first written", tag.Name)
		}
	}
	if tag, err := bob.TagInfo(ctx, "go"); err != nil || !tag.Following {
		t.Errorf("bob's #go = %+v, %v; want followed", tag, err)
	}
	if tag, err := alice.TagInfo(ctx, "go"); err != nil || tag.Following {
		t.Errorf("alice's #go = %+v, %v; want not followed", tag, err)
	}
	post := s.Post(aliceToken, "more #go")
	s.Drain()
	home, err := bob.GetTimelineHome(ctx, nil)
	if err != nil || len(home) != 1 || string(home[0].ID) != post {
		t.Errorf("bob's home timeline = %v, %v; want alice's #go post", home, err)
	}
	if got := followedByPages(t, bob); !slices.Equal(got, []string{"lua", "redis", "Go"}) {
		t.Errorf("tags followed, by pages: %v", got)
	}
	if tag, err := bob.TagUnfollow(ctx, "GO"); err != nil || tag.Following || tag.Name != "Go" {
		t.Errorf("unfollow = %+v, %v", tag, err)
	}
	if got := followedByPages(t, bob); !slices.Equal(got, []string{"lua", "redis"}) {
		t.Errorf("tags followed after an unfollow: %v", got)
	}
	if r := s.Call(http.MethodPost, "/api/v1/tags/not%20a%20tag/follow", bobToken, nil); r.Status != http.StatusNotFound {
		t.Errorf("following a tag that cannot be: %d %s", r.Status, r.Body)
	}
}

// followedByPages returns the names of the tags c's user follows, read
// two a page by the Link header.
func followedByPages(t *testing.T, c *mastodon.Client) []string {
	t.Helper()
	var got []string
	pg := &mastodon.Pagination{Limit: 2}
	for range 5 {
		page, err := c.TagsFollowed(t.Context(), pg)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range page {
			got = append(got, tag.Name)
		}
		if pg.MaxID == "" {
			break
		}
		pg = &mastodon.Pagination{Limit: 2, MaxID: pg.MaxID}
	}
	return got
}
