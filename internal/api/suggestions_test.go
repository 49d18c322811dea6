package api_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"
	"github.com/retwis/retwis"
)

// TestSuggestions: the accounts the user's follows follow are suggested,
// as accounts (v1) and as Suggestions of friends of friends (v2); one
// dismissed is suggested no more, in the API or on the pages.
func TestSuggestions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	users := map[string]retwis.User{}
	tokens := map[string]string{}
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		users[name], tokens[name] = s.User(name)
	}
	follow := func(who, whom string) {
		if _, err := s.Mastodon(&mastodon.Config{AccessToken: tokens[who]}).AccountFollow(ctx, mastodon.ID(id(users[whom].ID))); err != nil {
			t.Fatal(err)
		}
	}
	follow("alice", "bob")
	follow("bob", "carol")
	follow("bob", "dave")
	names := func() []string {
		var v1 []struct{ Username string }
		s.Call(http.MethodGet, "/api/v1/suggestions", tokens["alice"], nil).Decode(t, &v1)
		var out []string
		for _, a := range v1 {
			out = append(out, a.Username)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"carol", "dave"}) {
		t.Fatalf("suggestions = %v; want carol, dave", got)
	}
	var v2 []struct {
		Source  string
		Sources []string
		Account struct{ Username string }
	}
	s.Call(http.MethodGet, "/api/v2/suggestions?limit=1", tokens["alice"], nil).Decode(t, &v2)
	if len(v2) != 1 || v2[0].Account.Username != "carol" || !slices.Equal(v2[0].Sources, []string{"friends_of_friends"}) || v2[0].Source != "past_interactions" {
		t.Errorf("v2 suggestions = %+v", v2)
	}
	if r := s.Call(http.MethodDelete, "/api/v1/suggestions/"+id(users["carol"].ID), tokens["alice"], nil); r.Status != http.StatusOK {
		t.Fatalf("dismiss: %d %s", r.Status, r.Body)
	}
	if got := names(); !slices.Equal(got, []string{"dave"}) {
		t.Errorf("suggestions after dismissing carol = %v; want dave", got)
	}
	found, err := s.Store.WhoToFollow(ctx, users["alice"].ID, 5)
	if err != nil || len(found) != 1 || found[0].User.Username != "dave" {
		t.Errorf("the pages' who to follow = %+v, %v; want dave", found, err)
	}
}
