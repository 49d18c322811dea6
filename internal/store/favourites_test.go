package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// favouriteNotes returns the favourite notifications of uid, as
// "<actor>:<post>".
func (f *fixture) favouriteNotes(t *testing.T, uid int64) []string {
	t.Helper()
	notes := must.Value(f.St.AllNotifications(f.Ctx, uid))(t)
	var out []string
	for _, n := range notes {
		if n.Kind == retwis.NotificationFavourite {
			out = append(out, n.Actor.Username+":"+itoa(n.Post))
		}
	}
	return out
}

// seenPost returns post pid as viewer sees it, with its count and marks.
func (f *fixture) seenPost(t *testing.T, viewer, pid int64) retwis.Post {
	t.Helper()
	return must.Value(f.St.Post(f.Ctx, viewer, pid))(t)
}

// TestFavourite: a favourite marks the post for its user and counts for
// everyone, once however often it is given; its author is told once,
// however often it is taken back and given again; the lists of the
// user's favourites and of who favourited the post show it; taking it
// back uncounts it.
func TestFavourite(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "favourite me"})
		got := must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
		if !got.Favourited || got.Favourites != 1 {
			t.Fatalf("the favourite answers %+v, want favourited and counted", got)
		}
		must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t) // again: nothing changes
		if n := f.Do(t, "HGET", schema.Counts(p.ID), schema.FieldFavourites); n != "1" {
			t.Errorf("at once, the post counts %q favourites, want 1: the favourite counted it, not only its job", n)
		}
		f.Drain(t)
		if s := f.seenPost(t, bob.ID, p.ID); !s.Favourited || s.Favourites != 1 {
			t.Errorf("bob sees %+v, want his favourite counted once", s)
		}
		if s := f.seenPost(t, carol.ID, p.ID); s.Favourited || s.Favourites != 1 {
			t.Errorf("carol sees %+v, want the count and no mark", s)
		}
		if s := f.seenPost(t, 0, p.ID); s.Favourited || s.Favourites != 1 {
			t.Errorf("a visitor sees %+v, want the count and no mark", s)
		}
		for range 2 { // taken back and given again
			if got := must.Value(f.St.Unfavourite(f.Ctx, bob.ID, p.ID))(t); got.Favourited || got.Favourites != 0 {
				t.Fatalf("the unfavourite answers %+v", got)
			}
			f.Drain(t)
			if s := f.seenPost(t, carol.ID, p.ID); s.Favourites != 0 {
				t.Errorf("after the unfavourite: %d favourites", s.Favourites)
			}
			must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
			f.Drain(t)
		}
		if notes := f.favouriteNotes(t, alice.ID); !slices.Equal(notes, []string{"bob:" + itoa(p.ID)}) {
			t.Errorf("alice's favourite notifications: %v, want bob's once", notes)
		}
		favs := must.Value(f.St.Favourites(f.Ctx, bob.ID, retwis.Cursor{}, 10))(t)
		if ids := postIDs(favs.Posts); !slices.Equal(ids, []int64{p.ID}) || !favs.Posts[0].Favourited {
			t.Errorf("bob's favourites: %v", favs.Posts)
		}
		by := must.Value(f.St.Favouriters(f.Ctx, carol.ID, p.ID, retwis.Cursor{}, 10))(t)
		if len(by.Follows) != 1 || by.Follows[0].User.ID != bob.ID || by.Follows[0].Since.IsZero() {
			t.Errorf("who favourited the post: %+v", by.Follows)
		}
	})
}

// TestFavouriteOwnAndHidden: nobody is told of their own favourite, nor
// of one by an account they muted; an account that blocked (or was
// blocked by) the author cannot favourite their posts; a missing post
// cannot be favourited.
func TestFavouriteOwnAndHidden(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "hello"})
		must.OK(t, f.St.Block(f.Ctx, alice.ID, bob.ID))
		must.OK(t, f.St.Mute(f.Ctx, alice.ID, carol.ID))
		if _, err := f.St.Favourite(f.Ctx, bob.ID, p.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("a blocked user's favourite: %v, want not found", err)
		}
		if _, err := f.St.Favourite(f.Ctx, bob.ID, p.ID+1000); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("the favourite of a missing post: %v, want not found", err)
		}
		must.Value(f.St.Favourite(f.Ctx, alice.ID, p.ID))(t)
		must.Value(f.St.Favourite(f.Ctx, carol.ID, p.ID))(t)
		f.Drain(t)
		if s := f.seenPost(t, alice.ID, p.ID); s.Favourites != 2 {
			t.Errorf("%d favourites, want alice's and carol's", s.Favourites)
		}
		if notes := f.favouriteNotes(t, alice.ID); len(notes) != 0 {
			t.Errorf("alice is told of %v, want nothing", notes)
		}
	})
}

// TestFavouriteJobReplayed: the favourite job copies the user's mark
// whenever it runs, so that jobs run again, or in another order than
// their marks were written, leave the count true.
func TestFavouriteJobReplayed(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "again"})
		must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
		f.Drain(t)
		replay := func() {
			must.OK(t, f.St.Enqueue(f.Ctx, bob.ID, func(q schema.Queue) rueidis.Commands {
				return rueidis.Commands{f.St.JobCmd(q, schema.JobFavourite, p.ID, bob.ID), f.St.JobCmd(q, schema.JobFavourite, p.ID, bob.ID)}
			}))
			f.Drain(t)
		}
		replay()
		if s := f.seenPost(t, alice.ID, p.ID); s.Favourites != 1 || len(f.favouriteNotes(t, alice.ID)) != 1 {
			t.Errorf("after the jobs ran again: %d favourites, notes %v", s.Favourites, f.favouriteNotes(t, alice.ID))
		}
		f.Do(t, "ZREM", schema.Favourites(bob.ID), itoa(p.ID)) // the mark gone before its job ran
		replay()
		if s := f.seenPost(t, alice.ID, p.ID); s.Favourites != 0 {
			t.Errorf("a job run after its mark was taken back: %d favourites, want 0", s.Favourites)
		}
	})
}

// TestFavouriteOfDeletedPost: deleting a post drops its counts and who
// favourited it, and takes it out of the favourites of those who did and
// out of its author's pins; a bookmark of it is skipped on its list and
// removed then.
func TestFavouriteOfDeletedPost(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "soon gone"})
		kept := f.post(t, posts.Draft{Author: alice.ID, Text: "staying"})
		must.Value(f.St.Favourite(f.Ctx, bob.ID, kept.ID))(t)
		must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
		must.Value(f.St.Bookmark(f.Ctx, bob.ID, p.ID))(t)
		must.Value(f.St.Pin(f.Ctx, alice.ID, p.ID))(t)
		f.Drain(t)
		must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
		f.Drain(t)
		if marks := f.Strs(t, "ZRANGE", schema.Favourites(bob.ID), "0", "-1"); !slices.Equal(marks, []string{itoa(kept.ID)}) {
			t.Errorf("bob's favourites after the deletion: %v", marks)
		}
		if pins := f.Strs(t, "ZRANGE", schema.Pins(alice.ID), "0", "-1"); len(pins) != 0 {
			t.Errorf("alice's pins after the deletion: %v", pins)
		}
		if keys := append(f.Keys(t, schema.Counts(p.ID)), f.Keys(t, schema.FavouritedBy(p.ID))...); len(keys) != 0 {
			t.Errorf("keys of the deleted post left: %v", keys)
		}
		favs := must.Value(f.St.Favourites(f.Ctx, bob.ID, retwis.Cursor{}, 10))(t)
		if ids := postIDs(favs.Posts); !slices.Equal(ids, []int64{kept.ID}) {
			t.Errorf("bob's favourites: %v, want the post kept only", ids)
		}
		if page := must.Value(f.St.Bookmarks(f.Ctx, bob.ID, retwis.Cursor{}, 10))(t); len(page.Posts) != 0 {
			t.Errorf("bob's bookmarks: %v, want none", postIDs(page.Posts))
		}
		if marks := f.Strs(t, "ZRANGE", schema.Bookmarks(bob.ID), "0", "-1"); len(marks) != 0 {
			t.Errorf("bob's bookmarks after the list was read: %v", marks)
		}
		if _, err := f.St.Unfavourite(f.Ctx, bob.ID, p.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("unfavouriting a deleted post: %v, want not found", err)
		}
	})
}

// TestFavouritesPaging: the favourites list is newest favourite first,
// whatever the posts' ages and even within one millisecond, and pages by
// a cursor on its posts.
func TestFavouritesPaging(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		var ps []retwis.Post
		for range 5 {
			ps = append(ps, f.post(t, posts.Draft{Author: alice.ID, Text: "a post"}))
		}
		var want []int64
		for _, p := range slices.Backward(ps) { // the newest post favourited first, each within a millisecond or so
			must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
			want = append([]int64{p.ID}, want...)
		}
		var got []int64
		c := retwis.Cursor{}
		for {
			page := must.Value(f.St.Favourites(f.Ctx, bob.ID, c, 2))(t)
			got = append(got, postIDs(page.Posts)...)
			if !page.Older {
				break
			}
			c = retwis.Cursor{Before: page.Posts[len(page.Posts)-1].ID}
		}
		if !slices.Equal(got, want) {
			t.Errorf("favourites by page: %v, want %v", got, want)
		}
	})
}

// TestBookmark: a bookmark marks the post for its user alone, lists it
// on their bookmarks, tells nobody and counts nothing.
func TestBookmark(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "keep this"})
		if got := must.Value(f.St.Bookmark(f.Ctx, bob.ID, p.ID))(t); !got.Bookmarked || got.Favourited {
			t.Fatalf("the bookmark answers %+v", got)
		}
		f.Drain(t)
		if s := f.seenPost(t, alice.ID, p.ID); s.Bookmarked || s.Favourites != 0 {
			t.Errorf("alice sees %+v, want no mark or count", s)
		}
		page := must.Value(f.St.Bookmarks(f.Ctx, bob.ID, retwis.Cursor{}, 10))(t)
		if ids := postIDs(page.Posts); !slices.Equal(ids, []int64{p.ID}) || !page.Posts[0].Bookmarked {
			t.Errorf("bob's bookmarks: %+v", page.Posts)
		}
		if n := len(must.Value(f.St.AllNotifications(f.Ctx, alice.ID))(t)); n != 0 {
			t.Errorf("alice has %d notifications, want none", n)
		}
		must.Value(f.St.Unbookmark(f.Ctx, bob.ID, p.ID))(t)
		if page := must.Value(f.St.Bookmarks(f.Ctx, bob.ID, retwis.Cursor{}, 10))(t); len(page.Posts) != 0 {
			t.Errorf("bob's bookmarks after the unbookmark: %v", postIDs(page.Posts))
		}
	})
}

// TestPin: a user pins up to schema.MaxPins of their own posts, which
// everyone sees among their pinned posts and at the top of their
// profile page, newest pin first; another's post cannot be pinned;
// unpinning takes it off.
func TestPin(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		var ps []retwis.Post
		for range schema.MaxPins + 1 {
			ps = append(ps, f.post(t, posts.Draft{Author: alice.ID, Text: "mine"}))
		}
		if _, err := f.St.Pin(f.Ctx, bob.ID, ps[0].ID); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("bob pins alice's post: %v, want invalid", err)
		}
		for i, p := range ps[:schema.MaxPins] {
			if got := must.Value(f.St.Pin(f.Ctx, alice.ID, p.ID))(t); !got.Pinned {
				t.Fatalf("pin %d answers %+v", i, got)
			}
		}
		must.Value(f.St.Pin(f.Ctx, alice.ID, ps[0].ID))(t) // again: nothing changes
		if _, err := f.St.Pin(f.Ctx, alice.ID, ps[schema.MaxPins].ID); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("a pin past the bound: %v, want invalid", err)
		}
		pinned := must.Value(f.St.Pinned(f.Ctx, bob.ID, alice.ID))(t)
		want := postIDs(ps[:schema.MaxPins])
		slices.Reverse(want)
		if got := postIDs(pinned); !slices.Equal(got, want) {
			t.Errorf("alice's pins as bob sees them: %v, want %v", got, want)
		}
		page := must.Value(f.St.ProfilePage(f.Ctx, bob.ID, "alice", store.PageQuery{N: 2}))(t)
		if got := postIDs(page.Profile.Pinned); !slices.Equal(got, want) {
			t.Errorf("alice's profile page as bob sees it pins %v, want %v", got, want)
		}
		must.Value(f.St.Unpin(f.Ctx, alice.ID, ps[0].ID))(t)
		if got := must.Value(f.St.Pinned(f.Ctx, alice.ID, alice.ID))(t); len(got) != schema.MaxPins-1 || !got[0].Pinned {
			t.Errorf("after an unpin: %v", postIDs(got))
		}
	})
}

// TestFavouritesCheck: the check finds what is wrong with who favourited
// a post and its count, against the users' favourites, and repairs it:
// a favourite missing from the post's side, one there without its mark,
// a count that is off, a favourite of a post that is gone, the
// favourites of a post that is gone.
func TestFavouritesCheck(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		p := f.post(t, posts.Draft{Author: alice.ID, Text: "checked"})
		must.Value(f.St.Favourite(f.Ctx, bob.ID, p.ID))(t)
		f.Drain(t)
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Fatalf("a sound database: %v", got)
		}
		f.Do(t, "ZREM", schema.FavouritedBy(p.ID), itoa(bob.ID))
		f.Do(t, "ZADD", schema.FavouritedBy(p.ID), "1", itoa(carol.ID))
		f.Do(t, "HSET", schema.Counts(p.ID), schema.FieldFavourites, "7")
		f.Do(t, "ZADD", schema.Favourites(carol.ID), "1", "99999999")
		f.Do(t, "ZADD", schema.FavouritedBy(99999998), "1", itoa(carol.ID))
		want := []string{
			"favourites: a favourite missing from who favourited the post ×1",
			"favourites: a favourite of a post that is gone ×1",
			"favourites: a post's count of favourites is wrong ×1",
			"favourites: the favourites of a post that is gone ×1",
			"favourites: who favourited a post lists one who did not ×1",
		}
		if got := problems(f.check(t, false)); !slices.Equal(got, want) {
			t.Fatalf("found %q, want %q", got, want)
		}
		f.check(t, true)
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Errorf("after the repair: %q", got)
		}
		if s := f.seenPost(t, alice.ID, p.ID); s.Favourites != 1 {
			t.Errorf("after the repair: %d favourites, want bob's", s.Favourites)
		}
	})
}

// TestMarkLimit: favourites, bookmarks and pins beyond Limits.Actions are
// refused with TooMany and write nothing; taking one back is not
// limited.
func TestMarkLimit(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{Limits: store.Limits{Actions: retwis.Rate{Count: 1, Per: time.Hour}}}, false)
	alice := f.Register(t, "alice")
	p := f.post(t, posts.Draft{Author: alice.ID, Text: "once"})
	must.Value(f.St.Favourite(f.Ctx, alice.ID, p.ID))(t)
	before := f.Snapshot(t)
	if _, err := f.St.Bookmark(f.Ctx, alice.ID, p.ID); retwis.ErrorKind(err) != retwis.TooMany {
		t.Fatalf("a second action within the hour: %v, want too many", err)
	}
	f.AssertUnchanged(t, before)
	if got := must.Value(f.St.Unfavourite(f.Ctx, alice.ID, p.ID))(t); got.Favourited {
		t.Errorf("the unfavourite: %+v", got)
	}
}
