package api_test

import (
	"net/http"
	"strings"
	"testing"

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
