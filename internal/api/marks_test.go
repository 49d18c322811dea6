package api_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/mattn/go-mastodon"
)

// TestMastodonFavourites: go-mastodon favourites, bookmarks and takes
// them back; the statuses it is answered and reads carry the count and
// the reader's marks; the author is notified of the favourite once; the
// lists of favourites, bookmarks and who favourited a post page as
// go-mastodon follows them; a pinned post is what pinned=true lists.
func TestMastodonFavourites(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	aliceUser, aliceToken := s.User("alice")
	bobUser, bobToken := s.User("bob")
	alice, bob := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}), s.Mastodon(&mastodon.Config{AccessToken: bobToken})
	var ids []mastodon.ID
	for _, text := range []string{"one", "two", "three"} {
		ids = append(ids, mastodon.ID(s.Post(aliceToken, text)))
	}
	for _, pid := range ids {
		st, err := bob.Favourite(ctx, pid)
		if err != nil || !marked(st.Favourited) || st.FavouritesCount != 1 {
			t.Fatalf("favourite %s = %+v, %v", pid, st, err)
		}
	}
	if st, err := bob.Bookmark(ctx, ids[0]); err != nil || !marked(st.Bookmarked) || !marked(st.Favourited) {
		t.Fatalf("bookmark = %+v, %v", st, err)
	}
	s.Drain()
	if st, err := alice.GetStatus(ctx, ids[0]); err != nil || st.FavouritesCount != 1 || marked(st.Favourited) || marked(st.Bookmarked) {
		t.Errorf("alice reads %+v, %v; want counted, not hers", st, err)
	}
	got := pagesOfTwo(t, 5, func(pg *mastodon.Pagination) ([]*mastodon.Status, error) { return bob.GetFavourites(ctx, pg) })
	if len(got) != 3 || !slices.Contains(got, ids[0]) || !slices.Contains(got, ids[2]) {
		t.Errorf("bob's favourites by pages: %v; want the three posts", got)
	}
	if marks, err := bob.GetBookmarks(ctx, nil); err != nil || len(marks) != 1 || marks[0].ID != ids[0] {
		t.Errorf("bob's bookmarks: %v, %v", marks, err)
	}
	if by, err := alice.GetFavouritedBy(ctx, ids[1], nil); err != nil || len(by) != 1 || by[0].Username != "bob" {
		t.Errorf("favourited_by: %v, %v", by, err)
	}
	if st, err := bob.Unfavourite(ctx, ids[0]); err != nil || marked(st.Favourited) || st.FavouritesCount != 0 {
		t.Errorf("unfavourite = %+v, %v", st, err)
	}
	if _, err := bob.Favourite(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	notes, err := alice.GetNotifications(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var favs []mastodon.ID
	for _, n := range notes {
		if n.Type == "favourite" && n.Account.ID == mastodon.ID(id(bobUser.ID)) && n.Status != nil {
			favs = append(favs, n.Status.ID)
		}
	}
	if slices.Sort(favs); len(favs) != 3 {
		t.Errorf("alice's favourite notifications: %v; want one per post", favs)
	}
	if r := s.Call(http.MethodPost, "/api/v1/statuses/"+string(ids[0])+"/pin", bobToken, nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("bob pins alice's post: %d", r.Status)
	}
	if r := s.Call(http.MethodPost, "/api/v1/statuses/"+string(ids[1])+"/pin", aliceToken, nil); r.Status != http.StatusOK {
		t.Errorf("alice pins her post: %d %s", r.Status, r.Body)
	}
	pinned, err := bob.GetAccountPinnedStatuses(ctx, mastodon.ID(id(aliceUser.ID)))
	if err != nil || len(pinned) != 1 || pinned[0].ID != ids[1] {
		t.Errorf("alice's pinned statuses: %v, %v", pinned, err)
	}
	if _, err := bob.Favourite(ctx, "999999"); err == nil {
		t.Error("a favourite of a missing post was taken")
	}
}

// marked reads one of go-mastodon's marks of a status (an any).
func marked(v any) bool {
	b, _ := v.(bool)
	return b
}
