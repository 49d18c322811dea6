package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// TestFollowLists pages through a user's followers, most of whom
// followed in the same second, on one Redis and on a cluster: walking
// down by Before and back up by After gives every follower once, in the
// order of the whole list read at once, with non-increasing since
// times; users who unfollow meanwhile are left out without shifting the
// others; a cursor naming someone no longer in the list gives an empty
// page that leads back to the start.
func TestFollowLists(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		start := time.Now().Truncate(time.Second)
		star := f.Register(t, "star")
		var fans []retwis.User
		for i := range 25 {
			u := f.Register(t, fmt.Sprint("fan", i))
			if err := f.St.Follow(f.Ctx, u.ID, star.ID); err != nil {
				t.Fatal(err)
			}
			fans = append(fans, u)
		}
		all, err := f.St.Followers(f.Ctx, star.ID, retwis.Cursor{}, 100)
		if err != nil || len(all.Follows) != 25 || all.Older || all.Newer {
			t.Fatalf("all followers = %d, older %v, %v; want 25 on one page", len(all.Follows), all.Older, err)
		}
		for i, fl := range all.Follows {
			if fl.Since.Before(start) || fl.Since.After(time.Now()) || (i > 0 && fl.Since.After(all.Follows[i-1].Since)) {
				t.Fatalf("follower %d since %v: not between %v and now, newest first", i, fl.Since, start)
			}
		}
		if got := names(all.Follows); !slices.Contains(got, "fan0") || !slices.Contains(got, "fan24") {
			t.Fatalf("all followers = %q", got)
		}

		pages := walk(t, f, star.ID, 7)
		if got, want := names(slices.Concat(pages...)), names(all.Follows); !slices.Equal(got, want) {
			t.Fatalf("paged by 7: %q; want %q", got, want)
		}
		if len(pages) != 4 || len(pages[3]) != 4 {
			t.Fatalf("pages of 7 among 25: %d, the last of %d", len(pages), len(pages[len(pages)-1]))
		}

		// Back up from the last page by After: the same pages.
		last := pages[3][0].User.ID
		for k := 2; k >= 0; k-- {
			p, err := f.St.Followers(f.Ctx, star.ID, retwis.Cursor{After: last}, 7)
			if err != nil || !slices.Equal(names(p.Follows), names(pages[k])) || p.Newer != (k > 0) || !p.Older {
				t.Fatalf("page %d by After = %q (newer %v, older %v), %v; want %q", k, names(p.Follows), p.Newer, p.Older, err, names(pages[k]))
			}
			last = p.Follows[0].User.ID
		}

		// Two unfollow between the first page and the next ones.
		first, err := f.St.Followers(f.Ctx, star.ID, retwis.Cursor{}, 7)
		if err != nil {
			t.Fatal(err)
		}
		gone := []retwis.User{first.Follows[2].User, pages[2][3].User}
		for _, u := range gone {
			if err := f.St.Unfollow(f.Ctx, u.ID, star.ID); err != nil {
				t.Fatal(err)
			}
		}
		rest := names(first.Follows)
		for c := (retwis.Cursor{Before: first.Follows[6].User.ID}); ; {
			p, err := f.St.Followers(f.Ctx, star.ID, c, 7)
			if err != nil {
				t.Fatal(err)
			}
			rest = append(rest, names(p.Follows)...)
			if !p.Older {
				break
			}
			c.Before = p.Follows[len(p.Follows)-1].User.ID
		}
		want := slices.DeleteFunc(names(all.Follows), func(n string) bool { return n == gone[1].Username })
		if !slices.Equal(rest, want) {
			t.Fatalf("paged while two unfollowed: %q; want %q", rest, want)
		}

		p, err := f.St.Followers(f.Ctx, star.ID, retwis.Cursor{Before: gone[0].ID}, 7)
		if err != nil || len(p.Follows) != 0 || !p.Newer || p.Older {
			t.Fatalf("page after someone gone = %+v, %v; want empty, leading back", p, err)
		}
		// A fan who still follows (which fans unfollowed above depends on
		// the order of follows made in the same second).
		kept := fans[slices.IndexFunc(fans, func(u retwis.User) bool { return !slices.Contains(gone, u) })]
		following, err := f.St.Following(f.Ctx, kept.ID, retwis.Cursor{}, 10)
		if err != nil || !slices.Equal(names(following.Follows), []string{"star"}) {
			t.Fatalf("%s follows %q, %v; want star", kept.Username, names(following.Follows), err)
		}
	})
}

// TestFollowListRoundTrips: the first page of a follow list costs two
// round trips cold (the list, then the names) and none warm; a page
// further down one script call once the names are cached.
func TestFollowListRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	star := f.Register(t, "star")
	for i := range 30 {
		u := f.Register(t, fmt.Sprint("fan", i))
		if err := f.St.Follow(f.Ctx, u.ID, star.ID); err != nil {
			t.Fatal(err)
		}
	}
	calls := func(c retwis.Cursor) (int64, retwis.FollowPage) {
		before := f.RC.Calls.Load()
		p, err := f.St.Followers(f.Ctx, star.ID, c, 10)
		if err != nil {
			t.Fatal(err)
		}
		return f.RC.Calls.Load() - before, p
	}
	f.St.ForgetWrites()
	cold, p := calls(retwis.Cursor{})
	warm, _ := calls(retwis.Cursor{})
	calls(retwis.Cursor{Before: p.Follows[9].User.ID}) // caches the names of the second page
	deeper, _ := calls(retwis.Cursor{Before: p.Follows[9].User.ID})
	if cold > 2 || warm != 0 || deeper != 1 {
		t.Fatalf("round trips: first page %d cold, %d warm; second page %d warm; want at most 2, 0, 1", cold, warm, deeper)
	}
}

// walk returns the pages of n followers of uid, from the first by
// Before cursors.
func walk(t *testing.T, f *fixture, uid int64, n int) [][]retwis.ListedUser {
	t.Helper()
	var pages [][]retwis.ListedUser
	var c retwis.Cursor
	for {
		p, err := f.St.Followers(f.Ctx, uid, c, n)
		if err != nil {
			t.Fatal(err)
		}
		if p.Newer != (len(pages) > 0) {
			t.Fatalf("page %d says newer: %v", len(pages), p.Newer)
		}
		pages = append(pages, p.Follows)
		if !p.Older {
			return pages
		}
		c.Before = p.Follows[len(p.Follows)-1].User.ID
	}
}

func names(fs []retwis.ListedUser) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.User.Username)
	}
	return out
}
