package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
)

// TestAccountNote: a private note on an account comes back in the
// writer's relationship to it, and nobody else's; an empty one removes
// it; one too long is refused; an account that does not exist is 404.
func TestAccountNote(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, alice := s.User("alice")
	_, carol := s.User("carol")
	bob, _ := s.User("bob")
	path := "/api/v1/accounts/" + id(bob.ID) + "/note"
	var rel struct{ ID, Note string }
	s.Call(http.MethodPost, path, alice, map[string]any{"comment": " met at the café "}).Decode(t, &rel)
	if rel.ID != id(bob.ID) || rel.Note != "met at the café" {
		t.Fatalf("note = %+v", rel)
	}
	notes := func(token string) string {
		var rels []struct{ Note string }
		s.Call(http.MethodGet, "/api/v1/accounts/relationships?id[]="+id(bob.ID), token, nil).Decode(t, &rels)
		if len(rels) != 1 {
			t.Fatalf("relationships: %+v", rels)
		}
		return rels[0].Note
	}
	if n, other := notes(alice), notes(carol); n != "met at the café" || other != "" {
		t.Errorf("alice's note %q, carol's %q", n, other)
	}
	if r := s.Call(http.MethodPost, path, alice, map[string]any{"comment": strings.Repeat("x", 2001)}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a note too long: %d %s", r.Status, r.Body)
	}
	s.Call(http.MethodPost, path, alice, map[string]any{"comment": ""})
	if n := notes(alice); n != "" {
		t.Errorf("an emptied note: %q", n)
	}
	if r := s.Call(http.MethodPost, "/api/v1/accounts/123/note", alice, map[string]any{"comment": "x"}); r.Status != http.StatusNotFound {
		t.Errorf("a note on nobody: %d", r.Status)
	}
}

// TestFamiliarFollowers: for each account asked, those of its followers
// the user follows, in the order asked, none for an account nobody the
// user follows follows.
func TestFamiliarFollowers(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	ids := map[string]string{}
	tokens := map[string]string{}
	for _, name := range []string{"alice", "bob", "carol", "dave", "erin"} {
		u, token := s.User(name)
		ids[name], tokens[name] = id(u.ID), token
	}
	for _, f := range [][2]string{{"alice", "bob"}, {"alice", "carol"}, {"bob", "dave"}, {"carol", "dave"}, {"erin", "dave"}, {"bob", "erin"}} {
		if _, err := s.Mastodon(&mastodon.Config{AccessToken: tokens[f[0]]}).AccountFollow(ctx, mastodon.ID(ids[f[1]])); err != nil {
			t.Fatal(err)
		}
	}
	var got []struct {
		ID       string
		Accounts []struct{ Username string }
	}
	s.Call(http.MethodGet, "/api/v1/accounts/familiar_followers?id[]="+ids["dave"]+"&id[]="+ids["bob"]+"&id[]="+ids["erin"], tokens["alice"], nil).Decode(t, &got)
	want := []struct {
		id    string
		names string
	}{{ids["dave"], "bob carol"}, {ids["bob"], ""}, {ids["erin"], "bob"}}
	if len(got) != len(want) {
		t.Fatalf("familiar followers = %+v", got)
	}
	for i, w := range want {
		var names []string
		for _, a := range got[i].Accounts {
			names = append(names, a.Username)
		}
		if got[i].ID != w.id || strings.Join(names, " ") != w.names {
			t.Errorf("familiar followers of %s = %v; want %q", got[i].ID, names, w.names)
		}
	}
}

// TestFeaturedTags: a tag featured comes back with the tag's use, on
// the user's list and on the account's for anyone; the suggestions are
// the tags of the user's posts not featured yet; ten at most; an
// unfeatured tag is gone, and unfeaturing it again is 404. Follow
// requests cannot be decided: there are none.
func TestFeaturedTags(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	aliceUser, alice := s.User("alice")
	s.Post(alice, "#Go and #redis")
	s.Drain()
	var tag struct {
		ID, Name      string
		StatusesCount string  `json:"statuses_count"`
		LastStatusAt  *string `json:"last_status_at"`
	}
	s.Call(http.MethodPost, "/api/v1/featured_tags", alice, map[string]any{"name": "#go"}).Decode(t, &tag)
	today := time.Now().UTC().Format(time.DateOnly)
	if tag.Name != "Go" || tag.StatusesCount != "1" || tag.LastStatusAt == nil || *tag.LastStatusAt != today {
		t.Fatalf("featured = %+v", tag)
	}
	var list []struct{ ID, Name string }
	s.Call(http.MethodGet, "/api/v1/accounts/"+id(aliceUser.ID)+"/featured_tags", "", nil).Decode(t, &list)
	if len(list) != 1 || list[0].ID != tag.ID {
		t.Errorf("alice's featured tags, seen by anyone: %+v", list)
	}
	var suggested []struct{ Name string }
	s.Call(http.MethodGet, "/api/v1/featured_tags/suggestions", alice, nil).Decode(t, &suggested)
	if len(suggested) != 1 || suggested[0].Name != "redis" {
		t.Errorf("suggestions: %+v", suggested)
	}
	for i := range 9 {
		if r := s.Call(http.MethodPost, "/api/v1/featured_tags", alice, map[string]any{"name": fmt.Sprint("t", i)}); r.Status != http.StatusOK {
			t.Fatalf("featuring a tag: %d %s", r.Status, r.Body)
		}
	}
	for _, name := range []string{"eleventh", "not a tag"} {
		if r := s.Call(http.MethodPost, "/api/v1/featured_tags", alice, map[string]any{"name": name}); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("featuring %q: %d %s", name, r.Status, r.Body)
		}
	}
	if r := s.Call(http.MethodDelete, "/api/v1/featured_tags/"+tag.ID, alice, nil); r.Status != http.StatusOK {
		t.Fatalf("unfeature: %d %s", r.Status, r.Body)
	}
	s.Call(http.MethodGet, "/api/v1/featured_tags", alice, nil).Decode(t, &list)
	if len(list) != 9 || slices.ContainsFunc(list, func(l struct{ ID, Name string }) bool { return l.Name == "Go" }) {
		t.Errorf("after unfeaturing Go: %+v", list)
	}
	if r := s.Call(http.MethodDelete, "/api/v1/featured_tags/"+tag.ID, alice, nil); r.Status != http.StatusNotFound {
		t.Errorf("unfeature again: %d", r.Status)
	}
	for _, action := range []string{"authorize", "reject"} {
		if r := s.Call(http.MethodPost, "/api/v1/follow_requests/"+id(aliceUser.ID)+"/"+action, alice, nil); r.Status != http.StatusNotFound {
			t.Errorf("follow request %s: %d", action, r.Status)
		}
	}
}
