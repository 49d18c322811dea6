package store_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// pagesFixture is a reader who follows author0…author4 and mutes
// author4, posts by 10 authors that mention the reader and use a tag,
// author0 following everyone (someone to suggest) and a failed login to
// the reader's account, of which the next login tells.
func pagesFixture(t *testing.T, f *fixture) (reader retwis.User, authors []retwis.User) {
	t.Helper()
	reader = f.Register(t, "reader")
	for i := range 10 {
		a := f.Register(t, fmt.Sprint("author", i))
		authors = append(authors, a)
		for range 3 {
			if _, err := f.St.CreatePost(f.Ctx, a.ID, fmt.Sprintf("post by %d, @reader #tag", i)); err != nil {
				t.Fatal(err)
			}
		}
		if i < 5 {
			if err := f.St.Follow(f.Ctx, reader.ID, a.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, a := range authors[1:] {
		if err := f.St.Follow(f.Ctx, authors[0].ID, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.St.Mute(f.Ctx, reader.ID, authors[4].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.St.Login(f.Ctx, "reader", "wrong password"); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Fatalf("a wrong password: %v", err)
	}
	if _, _, err := f.St.Login(f.Ctx, "reader", "password1"); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	return reader, authors
}

// TestPages: each hot page's one call shows what the calls it replaces
// show, on one Redis and on a cluster (its reads go to several nodes in
// one call).
func TestPages(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		reader, authors := pagesFixture(t, f)
		q := store.PageQuery{N: 10, Unread: true}
		home, err := f.St.HomePage(f.Ctx, reader.ID, q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if home.LoginFailures != 1 || home.LastLoginFailure.IsZero() {
			t.Errorf("home page: %d failed logins, the last at %v; want 1", home.LoginFailures, home.LastLoginFailure)
		}
		if n, _, err := f.St.LoginNotice(f.Ctx, reader.ID); n != 0 || err != nil {
			t.Errorf("after the home page, %d failed logins to tell of (%v); want them forgotten", n, err)
		}
		page, counts, err := f.St.HomeTimeline(f.Ctx, reader.ID, retwis.Cursor{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "home page", home.Page)(page, nil)
		equal(t, "home counts", home.Counts)(counts, nil)
		equal(t, "who to follow", home.Suggestions)(f.St.WhoToFollow(f.Ctx, reader.ID, 3))
		equal(t, "home unread", home.Unread)(f.St.UnreadNotifications(f.Ctx, reader.ID))
		if home.Unread == 0 || len(home.Suggestions) != 3 || len(home.Page.Posts) != 10 {
			t.Errorf("home page: %d unread, %d suggestions, %d posts; want some, 3, 10", home.Unread, len(home.Suggestions), len(home.Page.Posts))
		}

		older := store.PageQuery{N: 10, Cursor: retwis.Cursor{Before: home.Page.Posts[9].ID}}
		deeper, err := f.St.HomePage(f.Ctx, reader.ID, older, 0)
		if err != nil {
			t.Fatal(err)
		}
		page, _, err = f.St.HomeTimeline(f.Ctx, reader.ID, older.Cursor, 10)
		equal(t, "older home page", deeper.Page)(page, err)
		if deeper.Unread != 0 || deeper.Suggestions != nil {
			t.Errorf("older home page: %d unread, %d suggestions; want neither, not asked for", deeper.Unread, len(deeper.Suggestions))
		}

		prof, err := f.St.ProfilePage(f.Ctx, reader.ID, "AUTHOR1", q)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "profile", prof.Profile)(f.St.Profile(f.Ctx, reader.ID, authors[1], retwis.Cursor{}, 10))
		equal(t, "relationship", prof.Relationship)(f.St.Relationship(f.Ctx, reader.ID, authors[1].ID))
		equal(t, "profile unread", prof.Unread)(home.Unread, nil)
		if prof.Profile.User != authors[1] || prof.Relationship.FollowedByCount != 1 {
			t.Errorf("profile page of %v followed by %d the reader follows; want %v, 1", prof.Profile.User, prof.Relationship.FollowedByCount, authors[1])
		}
		anon, err := f.St.ProfilePage(f.Ctx, 0, "author1", store.PageQuery{N: 10})
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "profile logged out", anon.Profile)(f.St.Profile(f.Ctx, 0, authors[1], retwis.Cursor{}, 10))

		tl, err := f.St.TimelinePage(f.Ctx, reader.ID, store.PageQuery{N: 20, Unread: true}, 5, 3)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "global timeline", tl.Page)(f.St.GlobalTimeline(f.Ctx, reader.ID, retwis.Cursor{}, 20))
		equal(t, "latest users", tl.Users)(f.St.LatestUsers(f.Ctx, 5))
		equal(t, "timeline unread", tl.Unread)(home.Unread, nil)
		if len(tl.Trends) != 1 || tl.Trends[0].Tag != "tag" {
			t.Errorf("trends %+v; want #tag", tl.Trends)
		}
	})
}

// TestProfilePageNotFound: a name nobody has, or whose user is gone
// (its entry of the names index left behind), is an error of kind
// NotFound naming it.
func TestProfilePageNotFound(t *testing.T) {
	f := newFixture(t)
	f.Do(t, "HSET", store.KeyNamesFolded("ghost"), "ghost", "999")
	for _, name := range []string{"nobody", "ghost"} {
		_, err := f.St.ProfilePage(f.Ctx, 0, name, store.PageQuery{N: 10})
		if retwis.ErrorKind(err) != retwis.NotFound || retwis.ErrorMessage(err) != fmt.Sprintf("There is no user called %q.", name) {
			t.Errorf("the profile page of %s: %v; want not found", name, err)
		}
	}
}

// TestPageRoundTrips: a hot page costs what its timeline costs, two round
// trips cold and none warm, whatever else it shows (the profile page one
// more, cold, to find the user by name); and neither more with
// more authors on it. Each page is read by a server of its own, so that
// cold means cold.
func TestPageRoundTrips(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		reader, authors := pagesFixture(t, f)
		// A muted author's posts on the first page take a second round
		// of reads to fill it: not the page counted here.
		if err := f.St.Unmute(f.Ctx, reader.ID, authors[4].ID); err != nil {
			t.Fatal(err)
		}
		q := store.PageQuery{N: 10, Unread: true}
		// Once first: the reader is marked seen, who to follow is kept and
		// the failed login told of, so that the pages write nothing.
		if _, err := f.St.HomePage(f.Ctx, reader.ID, q, 3); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name       string
			read       func(st *store.Store) error
			cold, warm int64
		}{
			{"home", func(st *store.Store) error { _, err := st.HomePage(f.Ctx, reader.ID, q, 3); return err }, 2, 0},
			{"profile", func(st *store.Store) error { _, err := st.ProfilePage(f.Ctx, reader.ID, "author1", q); return err }, 3, 0},
			{"timeline", func(st *store.Store) error { _, err := st.TimelinePage(f.Ctx, reader.ID, q, 5, 3); return err }, 2, 0},
		} {
			st, rc := storetest.OpenCounting(t, f.URL, store.Options{})
			if _, err := st.Account(f.Ctx, reader.ID, true); err != nil { // as authenticating the reader does
				t.Fatal(err)
			}
			calls := func() int64 {
				before := rc.Calls.Load()
				if err := c.read(st); err != nil {
					t.Fatal(err)
				}
				return rc.Calls.Load() - before
			}
			cold := calls()
			warm := calls()
			if cold > c.cold || warm > c.warm {
				t.Errorf("the %s page: %d round trips cold, %d warm; want at most %d and %d", c.name, cold, warm, c.cold, c.warm)
			}
		}
	})
}

// equal returns a check that got is deeply equal to want, which a call
// returned with err (nil: none), for checking a call's result in one
// line: equal(t, what, got)(call()).
func equal(t *testing.T, what string, got any) func(want any, err error) {
	return func(want any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
}
