package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestFiltersV1Writes: go-mastodon's v1 filter calls make, change and
// remove filters of one keyword, as Mastodon maps them to filters v2: a
// phrase is a keyword and the title of its filter, irreversible its
// hide action; they apply at once (a hidden post leaves the home
// timeline), and a phrase of a filter of several keywords cannot be
// changed through v1.
func TestFiltersV1Writes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, bob := client(t, s, "ann"), client(t, s, "bob")
	me, err := bob.GetAccountCurrentUser(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AccountFollow(t.Context(), me.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.PostStatus(t.Context(), &mastodon.Toot{Status: "a post about stew"}); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	if home, err := c.GetTimelineHome(t.Context(), nil); err != nil || len(home) != 1 {
		t.Fatalf("home before the filter: %d posts, %v; want bob's", len(home), err)
	}
	f, err := c.CreateFilter(t.Context(), &mastodon.Filter{Phrase: "stew", Context: []string{"public"}, WholeWord: true})
	if err != nil || f.Phrase != "stew" || !f.WholeWord || f.Irreversible || !slices.Equal(f.Context, []string{"public"}) {
		t.Fatalf("create: %+v, %v", f, err)
	}
	f, err = c.UpdateFilter(t.Context(), f.ID, &mastodon.Filter{Phrase: "stew", Context: []string{"home"}, Irreversible: true})
	if err != nil || f.WholeWord || !f.Irreversible || !slices.Equal(f.Context, []string{"home"}) {
		t.Fatalf("update: %+v, %v", f, err)
	}
	home, err := c.GetTimelineHome(t.Context(), nil)
	if err != nil || len(home) != 0 {
		t.Fatalf("home with the hiding filter: %d posts, %v; want none", len(home), err)
	}
	var v2 []struct {
		ID, Title    string
		FilterAction string `json:"filter_action"`
	}
	s.Call(http.MethodGet, "/api/v2/filters", c.Config.AccessToken, nil).Decode(t, &v2)
	if len(v2) != 1 || v2[0].Title != "stew" || v2[0].FilterAction != "hide" {
		t.Fatalf("v2 filters: %+v; want the one titled stew", v2)
	}
	if r := s.Call(http.MethodPost, "/api/v2/filters/"+v2[0].ID+"/keywords", c.Config.AccessToken, map[string]string{"keyword": "broth"}); r.Status != http.StatusOK {
		t.Fatalf("second keyword: %d %s", r.Status, r.Body)
	}
	r := s.Call(http.MethodPut, "/api/v1/filters/"+string(f.ID), c.Config.AccessToken, map[string]string{"phrase": "soup"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.ErrorMessage(t), "several keywords") {
		t.Fatalf("a phrase changed in a filter of two keywords: %d %s; want 422", r.Status, r.Body)
	}
	if err := c.DeleteFilter(t.Context(), f.ID); err != nil {
		t.Fatal(err)
	}
	left, err := c.GetFilters(t.Context())
	if err != nil || len(left) != 1 || left[0].Phrase != "broth" {
		t.Fatalf("after deleting stew: %+v, %v; want broth left in its filter", left, err)
	}
	if err := c.DeleteFilter(t.Context(), left[0].ID); err != nil {
		t.Fatal(err)
	}
	s.Call(http.MethodGet, "/api/v2/filters", c.Config.AccessToken, nil).Decode(t, &v2)
	if len(v2) != 0 {
		t.Fatalf("v2 filters after the last keyword went: %+v; want none", v2)
	}
	if r := s.Call(http.MethodPost, "/api/v1/filters", c.Config.AccessToken, map[string]string{"phrase": " ", "context[]": "home"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a blank phrase: %d %s; want 422", r.Status, r.Body)
	}
}
