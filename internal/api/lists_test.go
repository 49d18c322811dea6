package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestLists: an app makes, renames and deletes lists with go-mastodon,
// adds accounts the user follows (not others, not twice), reads a
// list's timeline page by page by the Link header, the lists that hold
// an account, and the list's accounts; another user's token finds none
// of it; a read-only token may not write; exclusive lists are refused.
func TestLists(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	carol, carolToken := s.User("carol")
	dan, _ := s.User("dan")
	alice := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	for _, u := range []int64{bob.ID, carol.ID} {
		if _, err := alice.AccountFollow(ctx, mastodon.ID(strconv.FormatInt(u, 10))); err != nil {
			t.Fatal(err)
		}
	}
	l, err := alice.CreateList(ctx, "friends")
	if err != nil || l.Title != "friends" {
		t.Fatalf("create: %v %+v", err, l)
	}
	bobID, danID := mastodon.ID(strconv.FormatInt(bob.ID, 10)), mastodon.ID(strconv.FormatInt(dan.ID, 10))
	if err := alice.AddToList(ctx, l.ID, danID); err == nil {
		t.Error("a list took an account the user does not follow")
	}
	if err := alice.AddToList(ctx, l.ID, bobID); err != nil {
		t.Fatal(err)
	}
	if err := alice.AddToList(ctx, l.ID, bobID); err == nil {
		t.Error("a list took an account twice")
	}
	var want []mastodon.ID
	for _, text := range []string{"one", "two", "three"} {
		want = append(want, mastodon.ID(s.Post(bobToken, text)))
	}
	s.Post(carolToken, "not on the list")
	s.Drain()
	got := pagesOfTwo(t, 5, func(pg *mastodon.Pagination) ([]*mastodon.Status, error) { return alice.GetTimelineList(ctx, l.ID, pg) })
	if !slices.Equal(got, reversed(want)) {
		t.Errorf("the list's timeline by pages: %v; want %v", got, reversed(want))
	}
	if held, err := alice.GetAccountLists(ctx, bobID); err != nil || len(held) != 1 || held[0].ID != l.ID {
		t.Errorf("lists of bob: %v %+v", err, held)
	}
	if members, err := alice.GetListAccounts(ctx, l.ID); err != nil || len(members) != 1 || members[0].ID != bobID {
		t.Errorf("members: %v %+v", err, members)
	}
	if renamed, err := alice.RenameList(ctx, l.ID, "close friends"); err != nil || renamed.Title != "close friends" {
		t.Errorf("rename: %v %+v", err, renamed)
	}
	checkListRefusals(t, s, l.ID, bobToken)
	if err := alice.RemoveFromList(ctx, l.ID, bobID); err != nil {
		t.Fatal(err)
	}
	if page, err := alice.GetTimelineList(ctx, l.ID, nil); err != nil || len(page) != 0 {
		t.Errorf("the timeline after bob left: %v %d posts", err, len(page))
	}
	if err := alice.DeleteList(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	if ls, err := alice.GetLists(ctx); err != nil || len(ls) != 0 {
		t.Errorf("lists after the deletion: %v %+v", err, ls)
	}
}

// checkListRefusals: another's list is 404 to bob; a read-only token
// may not write; exclusive lists and unknown replies policies are 422,
// and the entity says a list's policy.
func checkListRefusals(t *testing.T, s *server, list mastodon.ID, bobToken string) {
	t.Helper()
	for _, path := range []string{"/api/v1/lists/" + string(list), "/api/v1/lists/" + string(list) + "/accounts", "/api/v1/timelines/list/" + string(list)} {
		if r := s.Call(http.MethodGet, path, bobToken, nil); r.Status != http.StatusNotFound {
			t.Errorf("bob reads %s: %d %s", path, r.Status, r.Body)
		}
	}
	_, readOnly := s.User("reader", "read")
	if r := s.Call(http.MethodPost, "/api/v1/lists", readOnly, url.Values{"title": {"x"}}); r.Status != http.StatusForbidden {
		t.Errorf("a read token creates a list: %d", r.Status)
	}
	for _, form := range []url.Values{{"title": {"x"}, "exclusive": {"true"}}, {"title": {"x"}, "replies_policy": {"some"}}, {"title": {" "}}} {
		if r := s.Call(http.MethodPost, "/api/v1/lists", bobToken, form); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("create %v: %d %s", form, r.Status, r.Body)
		}
	}
	var made struct {
		RepliesPolicy string `json:"replies_policy"`
		Exclusive     bool
	}
	r := s.Call(http.MethodPost, "/api/v1/lists", bobToken, `{"title": "news", "replies_policy": "none", "exclusive": false}`)
	if r.Decode(t, &made); r.Status != http.StatusOK || made.RepliesPolicy != "none" {
		t.Errorf("create by JSON: %d %s", r.Status, r.Body)
	}
}

// TestListAccountsPaging: a list's accounts come newest account first,
// limit at a time with a Link header to the next page, or all at once
// with limit=0.
func TestListAccountsPaging(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("owner")
	var ids []string
	for i := range 3 {
		u, _ := s.User("member" + strconv.Itoa(i))
		ids = append(ids, strconv.FormatInt(u.ID, 10))
		s.Call(http.MethodPost, "/api/v1/accounts/"+ids[i]+"/follow", token, nil)
	}
	var l struct{ ID string }
	s.Call(http.MethodPost, "/api/v1/lists", token, url.Values{"title": {"three"}}).Decode(t, &l)
	if r := s.Call(http.MethodPost, "/api/v1/lists/"+l.ID+"/accounts", token, url.Values{"account_ids[]": ids}); r.Status != http.StatusOK {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	var page []struct{ ID string }
	r := s.Call(http.MethodGet, "/api/v1/lists/"+l.ID+"/accounts?limit=2", token, nil)
	if r.Decode(t, &page); len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] || !strings.Contains(r.Header.Get("Link"), "max_id="+ids[1]) {
		t.Errorf("first page %+v, Link %q", page, r.Header.Get("Link"))
	}
	r = s.Call(http.MethodGet, "/api/v1/lists/"+l.ID+"/accounts?limit=2&max_id="+ids[1], token, nil)
	if r.Decode(t, &page); len(page) != 1 || page[0].ID != ids[0] {
		t.Errorf("second page %+v", page)
	}
	r = s.Call(http.MethodGet, "/api/v1/lists/"+l.ID+"/accounts?limit=0", token, nil)
	if r.Decode(t, &page); len(page) != 3 {
		t.Errorf("limit=0: %d accounts", len(page))
	}
}
