package store_test

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// pageAll walks a timeline by Before cursors from the top and returns
// every post id seen, calling between (if set) after each page.
func pageAll(t *testing.T, read func(c retwis.Cursor) retwis.Page, between func()) []int64 {
	t.Helper()
	return storetest.PageAll(t, read, between)
}

func descending(from, to int64) []int64 {
	var out []int64
	for i := from; i >= to; i-- {
		out = append(out, i)
	}
	return out
}

// TestCursorPagingWhilePosting pages through a home timeline and a
// profile while new posts keep arriving: no post repeats, none is skipped.
func TestCursorPagingWhilePosting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	author, reader := f.Register(t, "author"), f.Register(t, "reader")
	must.OK(t, f.St.Follow(f.Ctx, reader.ID, author.ID))
	for i := range 35 {
		must.Value(f.St.CreatePost(f.Ctx, author.ID, fmt.Sprint("before ", i)))(t)
	}
	f.Drain(t)
	interrupt := func() {
		for range 3 {
			must.Value(f.St.CreatePost(f.Ctx, author.ID, "arrived while paging"))(t)
		}
		f.Drain(t)
	}
	if got := pageAll(t, f.Home(t, reader.ID, 10), interrupt); !slices.Equal(got, descending(35, 1)) {
		t.Fatalf("home paging saw %v", got)
	}
	profile := func(c retwis.Cursor) retwis.Page {
		p, err := f.St.Profile(f.Ctx, 0, author, c, 10)
		if err != nil {
			t.Fatal(err)
		}
		return p.Page
	}
	last := int64(35 + 3*3) // posts from the three interruptions of the home paging
	if got := pageAll(t, profile, interrupt); !slices.Equal(got, descending(last, 1)) {
		t.Fatalf("profile paging saw %v", got)
	}
	// Newer pages: from the oldest page back up by After cursors.
	p := f.Home(t, reader.ID, 10)(retwis.Cursor{Before: 6})
	up := f.Home(t, reader.ID, 10)(retwis.Cursor{After: p.Posts[0].ID})
	if !slices.Equal(postIDs(up.Posts), descending(15, 6)) || !up.Newer || !up.Older {
		t.Fatalf("the page after post 5 is %v (newer=%v older=%v)", postIDs(up.Posts), up.Newer, up.Older)
	}
}

// TestDeepHomePaging pages a home timeline far past its list, through
// its archive, to its beginning; then, after an unfollow and a deletion,
// the archived posts of the author no longer followed and the deleted
// post are left out (the list no longer holds them either).
func TestDeepHomePaging(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{HomeCap: 20, ArchiveChunk: 10}, true)
	reader := f.Register(t, "reader")
	var authors []retwis.User
	for i := range 3 {
		a := f.Register(t, fmt.Sprint("author", i))
		must.OK(t, f.St.Follow(f.Ctx, reader.ID, a.ID))
		authors = append(authors, a)
	}
	stranger := f.Register(t, "stranger")
	var posts []retwis.Post
	for i := range 90 {
		p := must.Value(f.St.CreatePost(f.Ctx, authors[i%3].ID, fmt.Sprint("post ", i)))(t)
		posts = append(posts, p)
		must.Value(f.St.CreatePost(f.Ctx, stranger.ID, "not followed"))(t)
	}
	own := must.Value(f.St.CreatePost(f.Ctx, reader.ID, "my own"))(t)
	posts = append(posts, own)
	f.Drain(t)
	list, _ := strconv.Atoi(f.Do(t, "LLEN", fmt.Sprint("posts:{", reader.ID, "}")))
	if chunks := f.Do(t, "ZCARD", fmt.Sprint("archive:{", reader.ID, "}")); list < 20 || list > 30 || chunks == "0" {
		t.Fatalf("the home list holds %d ids, the archive %s chunks; want 20 to 30, and some", list, chunks)
	}
	want := func(skip func(retwis.Post) bool) []int64 {
		var ids []int64
		for i := len(posts) - 1; i >= 0; i-- {
			if !skip(posts[i]) {
				ids = append(ids, posts[i].ID)
			}
		}
		return ids
	}
	if got, all := pageAll(t, f.Home(t, reader.ID, 7), nil), want(func(retwis.Post) bool { return false }); !slices.Equal(got, all) {
		t.Fatalf("deep paging saw %d posts %v;\nwant %d %v", len(got), got, len(all), all)
	}
	if err := f.St.Unfollow(f.Ctx, reader.ID, authors[0].ID); err != nil {
		t.Fatal(err)
	}
	gone := posts[4] // author1's, in the archive
	if err := f.St.DeletePost(f.Ctx, gone.AuthorID, gone.ID); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	left := want(func(p retwis.Post) bool { return p.AuthorID == authors[0].ID || p.ID == gone.ID })
	if got := pageAll(t, f.Home(t, reader.ID, 7), nil); !slices.Equal(got, left) {
		t.Fatalf("after unfollowing author0 and deleting a post, deep paging saw %d posts %v;\nwant %d %v", len(got), got, len(left), left)
	}
}

// TestCelebrityMergedAtRead: an author over the threshold is not fanned
// out, yet followers see the posts; crossing back needs no migration.
func TestCelebrityMergedAtRead(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{CelebrityThreshold: 2}, true)
	star := f.Register(t, "star")
	fans := []retwis.User{f.Register(t, "fan1"), f.Register(t, "fan2"), f.Register(t, "fan3")}
	early := must.Value(f.St.CreatePost(f.Ctx, star.ID, "before fame"))(t)
	for _, fan := range fans {
		must.OK(t, f.St.Follow(f.Ctx, fan.ID, star.ID))
	}
	famous := must.Value(f.St.CreatePost(f.Ctx, star.ID, "now famous"))(t)
	f.Drain(t) // the jobs: the post's (global timeline only) and the one that notes the new celebrity in its fans' sets
	if f.Do(t, "LINDEX", fmt.Sprint("posts:{", fans[0].ID, "}"), "0") == fmt.Sprint(famous.ID) {
		t.Fatal("a celebrity's post was fanned out")
	}
	if f.Do(t, "LINDEX", "timeline", "0") != fmt.Sprint(famous.ID) {
		t.Fatal("a celebrity's post is not on the global timeline")
	}
	mine := must.Value(f.St.CreatePost(f.Ctx, fans[0].ID, "a fan's own post"))(t)
	if got := pageAll(t, f.Home(t, fans[0].ID, 2), nil); !slices.Equal(got, []int64{mine.ID, famous.ID, early.ID}) {
		t.Fatalf("fan's home = %v; want own post, then the merged celebrity posts", got)
	}
	// Back under the threshold: fanned out again, the old posts still show.
	must.OK(t, f.St.Unfollow(f.Ctx, fans[1].ID, star.ID))
	must.OK(t, f.St.Unfollow(f.Ctx, fans[2].ID, star.ID))
	later := must.Value(f.St.CreatePost(f.Ctx, star.ID, "back to normal"))(t)
	f.Drain(t)
	if f.Do(t, "LINDEX", fmt.Sprint("posts:{", fans[0].ID, "}"), "0") != fmt.Sprint(later.ID) {
		t.Fatal("after dropping under the threshold, posts are not fanned out")
	}
	if got := pageAll(t, f.Home(t, fans[0].ID, 10), nil); !slices.Equal(got, []int64{later.ID, mine.ID, famous.ID, early.ID}) {
		t.Fatalf("fan's home = %v", got)
	}
	if got := pageAll(t, f.Home(t, fans[1].ID, 10), nil); len(got) != 0 {
		t.Fatalf("an ex-fan still sees %v", got)
	}
}

func TestFollowBackfillAndUnfollow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.Register(t, "a"), f.Register(t, "b")
	var ids []int64
	for i := range 6 {
		u := []retwis.User{a, b}[i%2]
		p := must.Value(f.St.CreatePost(f.Ctx, u.ID, fmt.Sprint("post ", i)))(t)
		ids = append(ids, p.ID)
	}
	f.Drain(t) // the posts' deliveries, which fan out to whoever follows by then, are done
	slices.Reverse(ids)
	must.OK(t, f.St.Follow(f.Ctx, b.ID, a.ID))
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", b.ID, "}"), "0", "-1"); fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Fatalf("after following, b's timeline list = %v; want a's posts merged in order %v", got, ids)
	}
	must.OK(t, f.St.Unfollow(f.Ctx, b.ID, a.ID))
	for _, p := range pageAll(t, f.Home(t, b.ID, 10), nil) {
		if p%2 == 1 { // a wrote the odd-numbered posts
			t.Fatalf("after unfollowing, b's home still shows a's post %d", p)
		}
	}
}

// TestBackfillAboveArchive: following someone merges their posts that
// are newer than the follower's timeline list, once the timeline has an
// archive; their older posts predate what the timeline holds and stay
// out, so the timeline stays in order from its list into its archive.
func TestBackfillAboveArchive(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{HomeCap: 5, ArchiveChunk: 3}, true)
	reader, friend, newcomer := f.Register(t, "reader"), f.Register(t, "friend"), f.Register(t, "newcomer")
	must.OK(t, f.St.Follow(f.Ctx, reader.ID, friend.ID))
	var mine []int64 // the newcomer's, oldest first
	var all []int64  // what the reader's timeline should hold, oldest first
	for i := range 20 {
		if i%4 == 0 {
			p := must.Value(f.St.CreatePost(f.Ctx, newcomer.ID, fmt.Sprint("newcomer ", i)))(t)
			mine = append(mine, p.ID)
		}
		p := must.Value(f.St.CreatePost(f.Ctx, friend.ID, fmt.Sprint("friend ", i)))(t)
		all = append(all, p.ID)
	}
	f.Drain(t)
	tail := must.Value(strconv.ParseInt(f.Do(t, "LINDEX", fmt.Sprint("posts:{", reader.ID, "}"), "-1"), 10, 64))(t)
	if f.Do(t, "ZCARD", fmt.Sprint("archive:{", reader.ID, "}")) == "0" {
		t.Fatal("the reader's timeline has no archive")
	}
	if err := f.St.Follow(f.Ctx, reader.ID, newcomer.ID); err != nil {
		t.Fatal(err)
	}
	merged := 0
	for _, p := range mine {
		if p > tail {
			all = append(all, p)
			merged++
		}
	}
	if merged == 0 || merged == len(mine) {
		t.Fatalf("%d of the newcomer's %d posts are above the list; the test wants some above and some below", merged, len(mine))
	}
	slices.Sort(all)
	slices.Reverse(all)
	if got := pageAll(t, f.Home(t, reader.ID, 4), nil); !slices.Equal(got, all) {
		t.Fatalf("after following the newcomer, the reader's timeline is %v; want %v (the newcomer's posts above %d)", got, all, tail)
	}
}

// TestInactiveUserRebuilt: fanout skips a user away for longer than
// InactiveAfter; when they come back their timeline is rebuilt before the
// page renders.
func TestInactiveUserRebuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.Register(t, "active")
	u, secret, err := f.St.Register(f.Ctx, "sleeper", "password1")
	must.OK(t, err)
	must.OK(t, f.St.Follow(f.Ctx, u.ID, a.ID))
	away := strconv.FormatInt(time.Now().Add(-40*24*time.Hour).Unix(), 10)
	f.Do(t, "HSET", fmt.Sprint("user:{", u.ID, "}"), "seen", away)
	p := must.Value(f.St.CreatePost(f.Ctx, a.ID, "while you were away"))(t)
	f.Drain(t)
	if n := f.Do(t, "LLEN", fmt.Sprint("posts:{", u.ID, "}")); n != "0" {
		t.Fatal("fanout delivered to an inactive user")
	}
	before := f.Snapshot(t)
	if _, err := f.St.Authenticate(f.Ctx, secret); err != nil {
		t.Fatal(err)
	}
	f.AssertUnchanged(t, before) // authentication alone writes nothing
	if _, _, err := f.St.HomeTimeline(f.Ctx, u.ID, retwis.Cursor{}, 10); err != nil {
		t.Fatal(err)
	}
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", u.ID, "}"), "0", "-1"); !slices.Equal(got, []string{fmt.Sprint(p.ID)}) {
		t.Fatalf("after returning, the timeline list is %v; want the missed post", got)
	}
	if f.Do(t, "HGET", fmt.Sprint("user:{", u.ID, "}"), "seen") == away {
		t.Fatal("the return was not recorded")
	}
}

func TestDeletePost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.Register(t, "author"), f.Register(t, "reader")
	must.OK(t, f.St.Follow(f.Ctx, b.ID, a.ID))
	for i := range 12 {
		must.Value(f.St.CreatePost(f.Ctx, a.ID, fmt.Sprint("post ", i+1)))(t)
	}
	f.Drain(t)
	storetest.WantKind(t, f.St.DeletePost(f.Ctx, b.ID, 11), retwis.Forbidden)
	storetest.WantKind(t, f.St.DeletePost(f.Ctx, a.ID, 999), retwis.NotFound)
	if err := f.St.DeletePost(f.Ctx, a.ID, 11); err != nil {
		t.Fatal(err)
	}
	// Gone from every page at once, and the next posts fill in.
	page := f.Home(t, b.ID, 10)(retwis.Cursor{})
	if want := []int64{12, 10, 9, 8, 7, 6, 5, 4, 3, 2}; !slices.Equal(postIDs(page.Posts), want) || !page.Older {
		t.Fatalf("reader's first page = %v; want %v", postIDs(page.Posts), want)
	}
	prof := must.Value(f.St.Profile(f.Ctx, 0, a, retwis.Cursor{}, 10))(t)
	global := must.Value(f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 10))(t)
	for _, p := range []retwis.Page{prof.Page, global} {
		if slices.Contains(postIDs(p.Posts), 11) || len(p.Posts) != 10 {
			t.Fatalf("page after delete = %v", postIDs(p.Posts))
		}
	}
	_, err := f.St.Post(f.Ctx, 0, 11)
	storetest.WantKind(t, err, retwis.NotFound)
	f.Drain(t)
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", b.ID, "}"), "0", "-1"); slices.Contains(got, "11") {
		t.Fatal("the deleted id was not taken off the follower's list")
	}
}

// TestOffsetWithCelebrity: old ?start=N links page the merged timeline,

// makeAway marks u as last seen 40 days ago, so fanout skips them.
func (f *fixture) makeAway(t *testing.T, u retwis.User) {
	t.Helper()
	away := strconv.FormatInt(time.Now().Add(-40*24*time.Hour).Unix(), 10)
	f.Do(t, "HSET", fmt.Sprint("user:{", u.ID, "}"), "seen", away)
}

// TestFailedRebuildRetried makes the rebuild of a returning user's home
// timeline fail (their following set is damaged): the page fails, and
// once the damage is repaired the next page rebuilds and shows the posts
// from the absence.
func TestFailedRebuildRetried(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, u := f.Register(t, "active"), f.Register(t, "sleeper")
	must.OK(t, f.St.Follow(f.Ctx, u.ID, a.ID))
	f.makeAway(t, u)
	p := must.Value(f.St.CreatePost(f.Ctx, a.ID, "while you were away"))(t)
	f.Drain(t)
	following := fmt.Sprint("following:{", u.ID, "}")
	saved := f.Do(t, "DUMP", following)
	f.Do(t, "DEL", following)
	f.Do(t, "SET", following, "damaged")
	f.St.HomeTimeline(f.Ctx, u.ID, retwis.Cursor{}, 10) // the rebuild fails; the page goes on
	if f.Do(t, "HGET", fmt.Sprint("user:{", u.ID, "}"), "rebuild") != "1" {
		t.Fatal("the failed rebuild is not marked as still to do")
	}
	f.Do(t, "DEL", following)
	f.Do(t, "RESTORE", following, "0", saved)
	page, _, err := f.St.HomeTimeline(f.Ctx, u.ID, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(page.Posts), []int64{p.ID}) {
		t.Fatalf("the next page = %v, %v; want the post from the absence", postIDs(page.Posts), err)
	}
	if f.Do(t, "HGET", fmt.Sprint("user:{", u.ID, "}"), "rebuild") != "" {
		t.Fatal("the pending rebuild was not cleared")
	}
}

// TestRebuildKeepsDeliveries rebuilds a timeline that holds a post the
// authors' indexes do not show yet (delivered while the rebuild read
// them): the rebuild merges, so the post stays.
func TestRebuildKeepsDeliveries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, u := f.Register(t, "author"), f.Register(t, "reader")
	must.OK(t, f.St.Follow(f.Ctx, u.ID, a.ID))
	old := must.Value(f.St.CreatePost(f.Ctx, a.ID, "indexed"))(t)
	f.Drain(t)
	f.Do(t, "HSET", "post:9999", "user_id", fmt.Sprint(a.ID), "time", "1", "body", "in flight")
	f.Do(t, "LPUSH", fmt.Sprint("posts:{", u.ID, "}"), "9999")
	if err := f.St.RebuildHome(f.Ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", u.ID, "}"), "0", "-1"); !slices.Equal(got, []string{"9999", fmt.Sprint(old.ID)}) {
		t.Fatalf("after the rebuild the list is %v; want the delivery kept", got)
	}
}

// TestFollowUnfollowSettle runs overlapping follows and unfollows of the
// same pair, as a double click or two tabs make: whatever the relation
// ends as, the home timeline agrees with it.
func TestFollowUnfollowSettle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, u := f.Register(t, "author"), f.Register(t, "clicker")
	for i := range 5 {
		must.Value(f.St.CreatePost(f.Ctx, a.ID, fmt.Sprint("post ", i)))(t)
	}
	for round := range 30 {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				var err error
				if (i+round)%2 == 0 {
					err = f.St.Follow(f.Ctx, u.ID, a.ID)
				} else {
					err = f.St.Unfollow(f.Ctx, u.ID, a.ID)
				}
				if err != nil {
					t.Error(err) // not Fatal: this is not the test's goroutine
				}
			})
		}
		wg.Wait()
		follows := f.Do(t, "ZSCORE", fmt.Sprint("following:{", u.ID, "}"), fmt.Sprint(a.ID)) != ""
		n := len(f.Strs(t, "LRANGE", fmt.Sprint("posts:{", u.ID, "}"), "0", "-1"))
		if follows != (n == 5) || (!follows && n != 0) {
			t.Fatalf("round %d: following=%v but the home timeline holds %d of the 5 posts", round, follows, n)
		}
	}
}

// TestFollowedCelebritiesPerUser checks that each user's set of followed
// celebrities follows the relation: filled by the job when an author
// becomes a celebrity, and by follows and unfollows afterwards.
func TestFollowedCelebritiesPerUser(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{CelebrityThreshold: 1}, true)
	star, fan1, fan2, late := f.Register(t, "star"), f.Register(t, "fan1"), f.Register(t, "fan2"), f.Register(t, "late")
	must.OK(t, f.St.Follow(f.Ctx, fan1.ID, star.ID))
	must.OK(t, f.St.Follow(f.Ctx, fan2.ID, star.ID))
	must.Value(f.St.CreatePost(f.Ctx, star.ID, "famous now"))(t)
	f.Drain(t)
	set := func(u retwis.User) []string {
		return f.Strs(t, "SMEMBERS", fmt.Sprint("celebrities_followed:{", u.ID, "}"))
	}
	want := []string{fmt.Sprint(star.ID)}
	if !slices.Equal(set(fan1), want) || !slices.Equal(set(fan2), want) {
		t.Fatalf("after the star's rise: %v %v", set(fan1), set(fan2))
	}
	must.OK(t, f.St.Follow(f.Ctx, late.ID, star.ID))
	must.OK(t, f.St.Unfollow(f.Ctx, fan2.ID, star.ID))
	if !slices.Equal(set(late), want) || len(set(fan2)) != 0 {
		t.Fatalf("after a follow and an unfollow: %v %v", set(late), set(fan2))
	}
	// 50 other celebrities nobody here follows cost this user nothing.
	for i := range 50 {
		f.Do(t, "HSET", fmt.Sprint("user:{", 5000+i, "}"), "celebrity", "1")
	}
	p := must.Value(f.St.CreatePost(f.Ctx, star.ID, "merged when read"))(t)
	page, _, err := f.St.HomeTimeline(f.Ctx, late.ID, retwis.Cursor{}, 1)
	if err != nil || len(page.Posts) != 1 || page.Posts[0].ID != p.ID {
		t.Fatalf("late fan's home = %v, %v", postIDs(page.Posts), err)
	}
}

// TestCelebrityPostDeletionWalksNobody deletes a post that was never
// fanned out: no job walks the author's followers for it.
func TestCelebrityPostDeletionWalksNobody(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{CelebrityThreshold: 2}, false)
	star := f.Register(t, "star")
	for i := range 3 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", star.ID, "}"), "1", fmt.Sprint(900+i))
	}
	p := must.Value(f.St.CreatePost(f.Ctx, star.ID, "famous words"))(t)
	f.Do(t, "XTRIM", store.KeyQueue(star.ID), "MAXLEN", "0") // the job noting the new celebrity
	if err := f.St.DeletePost(f.Ctx, star.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if n := f.Do(t, "XLEN", store.KeyQueue(star.ID)); n != "0" {
		t.Fatalf("deleting a celebrity's post queued %s jobs; want none", n)
	}
}
