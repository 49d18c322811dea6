package store_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// post publishes d, failing the test on an error.
func (f *fixture) post(t *testing.T, d posts.Draft) retwis.Post {
	t.Helper()
	p, err := f.St.Publish(f.Ctx, d)
	if err != nil {
		t.Fatalf("publish %+v: %v", d, err)
	}
	return p.Post
}

// tagPosts returns every post with tag, paging by 10.
func (f *fixture) tagPosts(t *testing.T, tag string) []int64 {
	t.Helper()
	return pageAll(t, func(c retwis.Cursor) retwis.Page {
		p, err := f.St.TagPosts(f.Ctx, 0, tag, c, 10)
		if err != nil {
			t.Fatalf("tag %s: %v", tag, err)
		}
		return p
	}, nil)
}

// mentions returns every post that mentions uid.
func (f *fixture) mentions(t *testing.T, uid int64) []int64 {
	t.Helper()
	p, err := f.St.Mentions(f.Ctx, uid, retwis.Cursor{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return postIDs(p.Posts)
}

// notes returns uid's notifications as "kind actor post" strings,
// newest first (which reads them).
func (f *fixture) notes(t *testing.T, uid int64) []string {
	t.Helper()
	ns, err := f.St.Notifications(f.Ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range ns {
		out = append(out, fmt.Sprint(n.Kind, " ", n.Actor.Username, " ", n.Post))
	}
	return out
}

// trending returns the names of the tags trending now.
func (f *fixture) trending(t *testing.T, at time.Time) []string {
	t.Helper()
	f.St.ForgetTrends()
	tr, err := f.St.Trending(f.Ctx, 10, at)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range tr {
		names = append(names, x.Tag)
	}
	return names
}

func (f *fixture) complete(t *testing.T, prefix string) []string {
	t.Helper()
	tags, err := f.St.CompleteTags(f.Ctx, prefix, 10)
	if err != nil {
		t.Fatal(err)
	}
	return tags
}

// TestConversationIndexed posts a body with every kind of entity and
// checks each index: mentions of existing users only (never of the
// author), tags folded for case and accents and named as first written,
// the tag's day index and counts, the completion and the trends.
func TestConversationIndexed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, bob := f.Register(t, "Alice"), f.Register(t, "bob")
	p := f.post(t, posts.Draft{Author: bob.ID,
		Text: "Hi @alice, @ALICE and @nobody and @bob: #Café #cafe #CAFE! #日本語 see https://example.com/x."})
	if !slices.Equal(p.Mentions, []string{"Alice", "bob"}) {
		t.Fatalf("post mentions %q; want the existing users, as registered, once each", p.Mentions)
	}
	f.Drain(t)
	if got := f.mentions(t, alice.ID); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("alice's mentions = %v; want [%d]", got, p.ID)
	}
	if got := f.mentions(t, bob.ID); len(got) != 0 {
		t.Fatalf("bob's mentions of himself = %v; want none", got)
	}
	if got := f.Strs(t, "KEYS", "mentions:*"); !slices.Equal(got, []string{"mentions:{" + itoa(alice.ID) + "}"}) {
		t.Fatalf("mention keys %q; want alice's only", got)
	}
	if got := f.notes(t, alice.ID); !slices.Equal(got, []string{"mention bob " + itoa(p.ID)}) {
		t.Fatalf("alice's notifications = %q", got)
	}
	if got := f.notes(t, bob.ID); len(got) != 0 {
		t.Fatalf("bob is notified of his own post: %q", got)
	}
	for _, spelling := range []string{"cafe", "CAFÉ", "Café", "café"} {
		if got := f.tagPosts(t, spelling); !slices.Equal(got, []int64{p.ID}) {
			t.Fatalf("#%s lists %v; want [%d] once", spelling, got, p.ID)
		}
	}
	if got := f.tagPosts(t, "日本語"); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("#日本語 lists %v", got)
	}
	now := time.Now()
	name, days, err := f.St.TagInfo(f.Ctx, "CAFE", 3, now)
	if err != nil || name != "Café" {
		t.Fatalf("TagInfo name = %q, %v; want Café, as first written", name, err)
	}
	if len(days) != 3 || days[2].Posts != 1 || days[0].Posts != 0 || days[2].Day.Day() != now.UTC().Day() {
		t.Fatalf("TagInfo days = %+v; want today's one post last", days)
	}
	day, err := f.St.TagDayPosts(f.Ctx, 0, "cafe", now, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(day.Posts), []int64{p.ID}) {
		t.Fatalf("today's #cafe = %v, %v", postIDs(day.Posts), err)
	}
	if day, err := f.St.TagDayPosts(f.Ctx, 0, "cafe", now.AddDate(0, 0, -1), retwis.Cursor{}, 10); err != nil || len(day.Posts) != 0 {
		t.Fatalf("yesterday's #cafe = %v, %v; want none", postIDs(day.Posts), err)
	}
	if got := f.complete(t, "#CA"); !slices.Equal(got, []string{"Café"}) {
		t.Fatalf("completion of #CA = %q", got)
	}
	if got := f.trending(t, now); !slices.Contains(got, "Café") || !slices.Contains(got, "日本語") || len(got) != 2 {
		t.Fatalf("trending = %q; want Café and 日本語", got)
	}
	for _, bad := range []string{"no such", "a:b", "{x}", strings.Repeat("x", 500), ""} {
		_, err := f.St.TagPosts(f.Ctx, 0, bad, retwis.Cursor{}, 10)
		storetest.WantKind(t, err, retwis.NotFound)
	}
	_, _, err = f.St.TagInfo(f.Ctx, "unused", 3, now)
	storetest.WantKind(t, err, retwis.NotFound)
}

// TestMentionsOfNobodyWriteNothing posts mentions of a user who does
// not exist and of the author: no index or notification is written.
func TestMentionsOfNobodyWriteNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	carol := f.Register(t, "carol")
	p := f.post(t, posts.Draft{Author: carol.ID, Text: "@ghost @Carol hello"})
	f.Drain(t)
	if len(p.Mentions) != 1 || p.Mentions[0] != "carol" {
		t.Fatalf("mentions = %q", p.Mentions)
	}
	for _, pattern := range []string{"mentions:*", "notifications:*", "tag:*"} {
		if keys := f.Strs(t, "KEYS", pattern); len(keys) != 0 {
			t.Fatalf("keys %q were written", keys)
		}
	}
}

// TestCompletionRanksByUse completes a prefix with the most used tags
// first, and counts a deleted post's tag down.
func TestCompletionRanksByUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "writer")
	var last retwis.Post
	for i, body := range []string{"#rust", "#Redis", "#redis", "#REDIS #ruby", "#ruby", "#python"} {
		last = f.post(t, posts.Draft{Author: u.ID, Text: fmt.Sprint(body, " ", i)})
	}
	f.Drain(t)
	if got := f.complete(t, "r"); !slices.Equal(got, []string{"Redis", "ruby", "rust"}) {
		t.Fatalf("completion of r = %q; want by use, Redis as first written", got)
	}
	if got := f.complete(t, "ru"); !slices.Equal(got, []string{"ruby", "rust"}) {
		t.Fatalf("completion of ru = %q", got)
	}
	if got := f.complete(t, "x"); len(got) != 0 {
		t.Fatalf("completion of x = %q", got)
	}
	if err := f.St.DeletePost(f.Ctx, u.ID, last.ID); err != nil {
		t.Fatal(err)
	}
	if got := f.complete(t, "p"); len(got) != 0 {
		t.Fatalf("completion of p after deleting the only #python = %q", got)
	}
}

// TestThreads builds a conversation and reads it: replies start with
// the author's @name and record the post they answer, a thread shows its
// ancestors and pages its replies in order, and the authors answered are
// notified of the reply (not also of the mention it starts with).
// Deleting a post in the middle leaves its replies standing, in reply to
// a deleted post, and a reply to it is refused and writes nothing.
func TestThreads(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
	root := f.post(t, posts.Draft{Author: alice.ID, Text: "a question"})
	r1 := f.post(t, posts.Draft{Author: bob.ID, Text: "an answer", InReplyTo: root.ID})
	if r1.Body != "@alice an answer" || r1.InReplyTo != root.ID || r1.ReplyTo != "alice" {
		t.Fatalf("reply = %+v; want it to start with @alice and record its parent", r1)
	}
	r2 := f.post(t, posts.Draft{Author: carol.ID, Text: "@BOB no", InReplyTo: r1.ID})
	if r2.Body != "@BOB no" {
		t.Fatalf("a reply that names its parent's author already was changed: %q", r2.Body)
	}
	r3 := f.post(t, posts.Draft{Author: alice.ID, Text: "thanks", InReplyTo: root.ID})
	f.Drain(t)

	th, err := f.St.Thread(f.Ctx, 0, r2.ID, 0, 10)
	if err != nil || !slices.Equal(postIDs(th.Ancestors), []int64{root.ID, r1.ID}) || th.Post.ID != r2.ID || th.ParentGone {
		t.Fatalf("thread of r2: ancestors %v, post %d, gone %v, %v", postIDs(th.Ancestors), th.Post.ID, th.ParentGone, err)
	}
	th, err = f.St.Thread(f.Ctx, 0, root.ID, 0, 1)
	if err != nil || !slices.Equal(postIDs(th.Replies.Posts), []int64{r1.ID}) || !th.Replies.Newer || len(th.Ancestors) != 0 {
		t.Fatalf("first page of root's replies = %v (more: %v), %v", postIDs(th.Replies.Posts), th.Replies.Newer, err)
	}
	th, err = f.St.Thread(f.Ctx, 0, root.ID, r1.ID, 1)
	if err != nil || !slices.Equal(postIDs(th.Replies.Posts), []int64{r3.ID}) || th.Replies.Newer {
		t.Fatalf("second page of root's replies = %v (more: %v), %v", postIDs(th.Replies.Posts), th.Replies.Newer, err)
	}
	if got := f.notes(t, alice.ID); !slices.Equal(got, []string{"reply bob " + itoa(r1.ID)}) {
		t.Fatalf("alice's notifications = %q; want bob's reply once (not her own)", got)
	}
	if got := f.notes(t, bob.ID); !slices.Equal(got, []string{"reply carol " + itoa(r2.ID)}) {
		t.Fatalf("bob's notifications = %q", got)
	}
	if got := f.mentions(t, alice.ID); !slices.Equal(got, []int64{r1.ID}) {
		t.Fatalf("alice's mentions = %v; a reply mentions its parent's author", got)
	}

	if err := f.St.DeletePost(f.Ctx, bob.ID, r1.ID); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	th, err = f.St.Thread(f.Ctx, 0, r2.ID, 0, 10)
	if err != nil || !th.ParentGone || len(th.Ancestors) != 0 || th.Post.InReplyTo != r1.ID {
		t.Fatalf("thread of r2 after its parent was deleted: gone %v, ancestors %v, %v", th.ParentGone, postIDs(th.Ancestors), err)
	}
	th, err = f.St.Thread(f.Ctx, 0, root.ID, 0, 10)
	if err != nil || !slices.Equal(postIDs(th.Replies.Posts), []int64{r3.ID}) {
		t.Fatalf("root's replies after deleting one = %v, %v", postIDs(th.Replies.Posts), err)
	}
	if got := f.notes(t, alice.ID); len(got) != 0 {
		t.Fatalf("alice is still notified of a deleted reply: %q", got)
	}
	if got := f.mentions(t, alice.ID); len(got) != 0 {
		t.Fatalf("alice's mentions after the deletion = %v", got)
	}
	if n := f.Do(t, "EXISTS", "replies:{"+itoa(r1.ID)+"}"); n != "0" {
		t.Fatal("the deleted post's replies index stays")
	}

	before := f.Snapshot(t)
	for _, parent := range []int64{r1.ID, 999_999} {
		_, err := f.St.Publish(f.Ctx, posts.Draft{Author: carol.ID, Text: "late", InReplyTo: parent})
		if err != posts.ErrParentGone {
			t.Fatalf("reply to a missing post %d: %v; want ErrParentGone", parent, err)
		}
	}
	f.AssertUnchanged(t, before)
}

// TestThreadAncestorsBounded replies to a reply, again and again: a
// thread records at most retwis.MaxAncestors posts above it.
func TestThreadAncestorsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "talker")
	var ids []int64
	parent := int64(0)
	for i := range retwis.MaxAncestors + 5 {
		p := f.post(t, posts.Draft{Author: u.ID, Text: fmt.Sprint("turn ", i), InReplyTo: parent})
		ids, parent = append(ids, p.ID), p.ID
	}
	th, err := f.St.Thread(f.Ctx, 0, parent, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := ids[len(ids)-1-retwis.MaxAncestors : len(ids)-1]
	if !slices.Equal(postIDs(th.Ancestors), want) {
		t.Fatalf("ancestors = %v; want the nearest %d, oldest first", postIDs(th.Ancestors), retwis.MaxAncestors)
	}
}

// TestDeleteUnindexes deletes a post with tags, mentions and a parent,
// after its delivery and before it: either way it leaves every index it
// entered (the tag posts, days, trends and completion, the mentions, the
// replies and the notifications).
func TestDeleteUnindexes(t *testing.T) {
	t.Parallel()
	for _, delivered := range []bool{true, false} {
		t.Run(fmt.Sprint("delivered=", delivered), func(t *testing.T) {
			t.Parallel()
			url := redistest.Start(t).URL
			f := newFixtureWith(t, url, store.Options{}, false)
			alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
			root := f.post(t, posts.Draft{Author: alice.ID, Text: "#keep this"})
			p := f.post(t, posts.Draft{Author: bob.ID, Text: "@alice #Gone #keep #ñu", InReplyTo: root.ID})
			if delivered {
				storetest.StartWorker(t, url, store.Options{Password: storetest.Cheap, Log: quiet})
				f.Drain(t)
			}
			if err := f.St.DeletePost(f.Ctx, bob.ID, p.ID); err != nil {
				t.Fatal(err)
			}
			if !delivered {
				storetest.StartWorker(t, url, store.Options{Password: storetest.Cheap, Log: quiet})
			}
			f.Drain(t)
			for _, tag := range []string{"gone", "ñu"} {
				if got := f.tagPosts(t, tag); len(got) != 0 {
					t.Fatalf("#%s lists %v after the deletion", tag, got)
				}
				if got := f.complete(t, tag); len(got) != 0 {
					t.Fatalf("completion of %s = %q", tag, got)
				}
				if _, days, err := f.St.TagInfo(f.Ctx, tag, 1, time.Now()); err == nil && days[0].Posts != 0 {
					t.Fatalf("#%s still counts %d posts today", tag, days[0].Posts)
				}
			}
			if got := f.tagPosts(t, "keep"); !slices.Equal(got, []int64{root.ID}) {
				t.Fatalf("#keep lists %v; want the remaining post", got)
			}
			if got := f.trending(t, time.Now()); !slices.Equal(got, []string{"keep"}) {
				t.Fatalf("trending after the deletion = %q; want keep only", got)
			}
			if got := f.mentions(t, alice.ID); len(got) != 0 {
				t.Fatalf("alice's mentions = %v", got)
			}
			if got := f.notes(t, alice.ID); len(got) != 0 {
				t.Fatalf("alice's notifications = %q", got)
			}
			if th, err := f.St.Thread(f.Ctx, 0, root.ID, 0, 10); err != nil || len(th.Replies.Posts) != 0 {
				t.Fatalf("root's replies = %v, %v", postIDs(th.Replies.Posts), err)
			}
		})
	}
}

// TestTrendDecay counts tags at simulated times: a burst a day ago
// leads then, and weighs less now than two posts of this hour; a
// post's weight halves
// every three hours, and far in the future (2,000 half-lives, past what
// a double holds unless the shard is rescaled) a tag still weighs one
// post.
func TestTrendDecay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	now := time.Now().Truncate(time.Second)
	add := func(tag string, at time.Time, n int) {
		for range n {
			if err := f.St.AddTrend(f.Ctx, tag, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("burst", now.Add(-24*time.Hour), 20)
	add("steady", now.Add(-24*time.Hour), 1)
	if got := f.trending(t, now.Add(-24*time.Hour)); !slices.Equal(got, []string{"burst", "steady"}) {
		t.Fatalf("trending a day ago = %q; want the burst first", got)
	}
	add("steady", now, 2)
	if got := f.trending(t, now); !slices.Equal(got, []string{"steady", "burst"}) {
		t.Fatalf("trending now = %q; want the burst faded below two posts", got)
	}
	weights := func(at time.Time) map[string]float64 {
		f.St.ForgetTrends()
		tr, err := f.St.Trending(f.Ctx, 10, at)
		if err != nil {
			t.Fatal(err)
		}
		w := map[string]float64{}
		for _, x := range tr {
			w[x.Tag] = x.Weight
		}
		return w
	}
	for _, c := range []struct {
		after time.Duration
		want  float64
	}{{0, 2 + 1.0/256}, {3 * time.Hour, 1 + 1.0/512}, {9 * time.Hour, 0.25 + 1.0/2048}} {
		if got := weights(now.Add(c.after))["steady"]; math.Abs(got-c.want) > 1e-9 {
			t.Fatalf("steady weighs %v after %v; want %v", got, c.after, c.want)
		}
	}
	far := now.Add(2000 * 3 * time.Hour)
	add("steady", far, 1)
	w := weights(far)
	if math.Abs(w["steady"]-1) > 1e-9 || math.IsInf(w["burst"], 0) || math.IsNaN(w["burst"]) {
		t.Fatalf("weights 2,000 half-lives later = %v; want steady 1 and finite", w)
	}
	if got := f.trending(t, far); got[0] != "steady" {
		t.Fatalf("trending far ahead = %q", got)
	}
}

// TestTrendingKeptAMoment reads the trending tags twice within
// TrendsFresh: the second read costs no round trip and gives the same
// tags with their weights brought to the time asked, even though
// another tag was used meanwhile; after TrendsFresh that tag shows. The
// two reads are timed: on a machine too loaded for them to fall within
// TrendsFresh, the test starts again on a new database.
func TestTrendingKeptAMoment(t *testing.T) {
	t.Parallel()
	for try := 1; !trendingKeptAMoment(t, newFixture(t)); try++ {
		if try == 5 {
			t.Fatalf("five times, the two reads took longer than %v", store.TrendsFresh)
		}
	}
}

// trendingKeptAMoment runs TestTrendingKeptAMoment on f. It reports
// false, having checked nothing of the second read, if that read ended
// TrendsFresh or more after the first began.
func trendingKeptAMoment(t *testing.T, f *fixture) bool {
	t.Helper()
	now := time.Now().Truncate(time.Second) // trends count whole seconds
	must.OK(t, f.St.AddTrend(f.Ctx, "first", now))
	f.St.ForgetTrends()
	read := func(at time.Time) (tags []string, weight float64, calls int64) {
		before := f.RC.Calls.Load()
		tr := must.Value(f.St.Trending(f.Ctx, 10, at))(t)
		for _, x := range tr {
			tags = append(tags, x.Tag)
		}
		return tags, tr[0].Weight, f.RC.Calls.Load() - before
	}
	began := time.Now()
	if tags, w, _ := read(now); !slices.Equal(tags, []string{"first"}) || math.Abs(w-1) > 1e-9 {
		t.Fatalf("trending = %q weighing %v; want first, 1", tags, w)
	}
	kept := time.Now() // the store keeps the read from a moment before
	for range 2 {
		must.OK(t, f.St.AddTrend(f.Ctx, "second", now))
	}
	tags, w, calls := read(now.Add(3 * time.Hour))
	if time.Since(began) >= store.TrendsFresh {
		return false
	}
	if !slices.Equal(tags, []string{"first"}) || math.Abs(w-0.5) > 1e-9 || calls != 0 {
		t.Fatalf("trending again = %q weighing %v in %d round trips; want first, 0.5, none", tags, w, calls)
	}
	time.Sleep(time.Until(kept.Add(store.TrendsFresh))) // what the store keeps, it keeps TrendsFresh
	if tags, _, _ := read(now); !slices.Equal(tags, []string{"second", "first"}) {
		t.Fatalf("trending after %v = %q; want second, first", store.TrendsFresh, tags)
	}
	return true
}

// TestTagPagingWhilePosting pages through a tag while posts with it keep
// arriving: the pages hold exactly the posts that were there, newest
// first, none twice.
func TestTagPagingWhilePosting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "poster")
	var want []int64
	for i := range 35 {
		want = append(want, f.post(t, posts.Draft{Author: u.ID, Text: fmt.Sprint("#Live ", i)}).ID)
	}
	f.Drain(t)
	slices.Reverse(want)
	more := 0
	got := pageAll(t, func(c retwis.Cursor) retwis.Page {
		p, err := f.St.TagPosts(f.Ctx, 0, "live", c, 10)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}, func() {
		for range 3 {
			f.post(t, posts.Draft{Author: u.ID, Text: fmt.Sprint("#LIVE more ", more)})
			more++
		}
		f.Drain(t)
	})
	if !slices.Equal(got, want) {
		t.Fatalf("paging while posting saw %v;\nwant %v", got, want)
	}
	if got := f.tagPosts(t, "live"); len(got) != 35+more {
		t.Fatalf("#live lists %d posts; want %d", len(got), 35+more)
	}
}

// TestNotificationsUnreadAndCapped counts unread notifications (a
// follow, mentions), clears the count when they are read, and keeps the
// newest schema's cap of them.
func TestNotificationsUnreadAndCapped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
	unread := func() int64 {
		t.Helper()
		n, err := f.St.UnreadNotifications(f.Ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := unread(); n != 0 {
		t.Fatalf("unread of a new user = %d", n)
	}
	if err := f.St.Follow(f.Ctx, bob.ID, alice.ID); err != nil {
		t.Fatal(err)
	}
	if n := unread(); n != 1 {
		t.Fatalf("unread after a follow = %d; want 1", n)
	}
	ns, err := f.St.Notifications(f.Ctx, alice.ID)
	if err != nil || len(ns) != 1 || ns[0].Kind != retwis.NotificationFollow || ns[0].Actor.Username != "bob" || !ns[0].Unread {
		t.Fatalf("notifications = %+v, %v; want bob's follow, unread", ns, err)
	}
	if n := unread(); n != 0 {
		t.Fatalf("unread after reading = %d; want 0", n)
	}
	if ns := must.Value(f.St.Notifications(f.Ctx, alice.ID))(t); len(ns) != 1 || ns[0].Unread {
		t.Fatalf("notifications read again = %+v; want the follow, read", ns)
	}
	const mentions = 210
	for i := range mentions {
		f.post(t, posts.Draft{Author: bob.ID, Text: fmt.Sprint("@alice ", i)})
	}
	f.Drain(t)
	if n := unread(); n != 200 {
		t.Fatalf("unread after %d mentions = %d; want the cap, 200", mentions, n)
	}
	ns, err = f.St.Notifications(f.Ctx, alice.ID)
	if err != nil || len(ns) != 200 || ns[0].Kind != retwis.NotificationMention {
		t.Fatalf("%d notifications, %v; want 200 mentions", len(ns), err)
	}
	if n := unread(); n != 0 {
		t.Fatalf("unread after reading = %d", n)
	}
	if got := f.mentions(t, alice.ID); len(got) != 100 {
		t.Fatalf("a page of 100 mentions holds %d", len(got))
	}
}

// TestClusterConversations runs the conversation indexes on Redis
// Cluster, where the tags, trends, completion, mentions and replies of
// one post live on different nodes.
func TestClusterConversations(t *testing.T) {
	t.Parallel()
	f := newFixtureAt(t, cluster.URL(t))
	alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
	var ids []int64
	for i := range 12 {
		ids = append(ids, f.post(t, posts.Draft{Author: bob.ID, Text: fmt.Sprintf("@alice #t%d #Shared %d", i, i)}).ID)
	}
	// The worker indexes the jobs of two authors in no set order: bob's
	// posts are indexed first, so that the tag is named as he wrote it.
	f.Drain(t)
	reply := f.post(t, posts.Draft{Author: alice.ID, Text: "yes #shared", InReplyTo: ids[0]})
	f.Drain(t)
	slices.Reverse(ids)
	if got := f.tagPosts(t, "shared"); !slices.Equal(got, append([]int64{reply.ID}, ids...)) {
		t.Fatalf("#shared on the cluster = %v", got)
	}
	if got := f.mentions(t, alice.ID); !slices.Equal(got, ids) {
		t.Fatalf("alice's mentions on the cluster = %v", got)
	}
	if got := f.trending(t, time.Now()); len(got) != 10 || got[0] != "Shared" {
		t.Fatalf("trending on the cluster = %q; want Shared first of 10", got)
	}
	if got := f.complete(t, "T1"); !slices.Equal(got, []string{"t1", "t10", "t11"}) {
		t.Fatalf("completion of T1 on the cluster = %q", got)
	}
	th, err := f.St.Thread(f.Ctx, 0, ids[len(ids)-1], 0, 10)
	if err != nil || !slices.Equal(postIDs(th.Replies.Posts), []int64{reply.ID}) {
		t.Fatalf("thread on the cluster: %v, %v", postIDs(th.Replies.Posts), err)
	}
	if got := f.notes(t, bob.ID); !slices.Equal(got, []string{"reply alice " + itoa(reply.ID)}) {
		t.Fatalf("bob's notifications on the cluster = %q", got)
	}
	if err := f.St.DeletePost(f.Ctx, bob.ID, ids[0]); err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	if got := f.tagPosts(t, "t11"); len(got) != 0 {
		t.Fatalf("#t11 after its post was deleted on the cluster = %v", got)
	}
}

// TestConversationRoundTrips counts the round trips of posting and of
// the conversation pages: a post with five mentions and five tags, or a
// reply, costs what a plain post does once the users and the post it
// answers are in the client-side cache (before, two reads more: the
// names with the post answered, then the users found), and the thread,
// tag and trending pages cost at most two when cold, none warm. The
// delivery worker starts after the posts are counted: its writes (a
// post marked delivered) would take what they change out of the cache
// at any moment.
func TestConversationRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author := f.Register(t, "author")
	var friends []retwis.User
	for i := range 5 {
		friends = append(friends, f.Register(t, fmt.Sprint("friend", i)))
	}
	calls := func(fn func()) int64 {
		before := f.RC.Calls.Load()
		fn()
		return f.RC.Calls.Load() - before
	}
	post := func(d posts.Draft) (int64, retwis.Post) {
		var p retwis.Post
		n := calls(func() { p = f.post(t, d) })
		return n, p
	}
	f.St.ForgetWrites()
	plain, parent := post(posts.Draft{Author: author.ID, Text: "plain"})
	rich := posts.Draft{Author: author.ID, Text: "@friend0 @friend1 @friend2 @friend3 @friend4 #a #b #c #d #e"}
	richCold, _ := post(rich)
	richWarm, _ := post(rich)
	f.St.ForgetWrites()
	reply := posts.Draft{Author: author.ID, Text: "@friend0 #a again", InReplyTo: parent.ID}
	replyCold, _ := post(reply)
	replyWarm, _ := post(reply)
	if richCold > plain+2 || richWarm != plain || replyCold > plain+2 || replyWarm != plain {
		t.Fatalf("round trips of a plain post %d; with 5 mentions and 5 tags %d cold, %d warm; a reply %d cold, %d warm",
			plain, richCold, richWarm, replyCold, replyWarm)
	}
	storetest.StartWorker(t, f.URL, store.Options{})
	f.Drain(t)
	twice := func(read func() error) (cold, warm int64) {
		f.St.ForgetWrites()
		f.St.ForgetTrends()
		var err error
		cold = calls(func() { err = read() })
		if err != nil {
			t.Fatal(err)
		}
		return cold, calls(func() { err = read() })
	}
	for name, read := range map[string]func() error{
		"thread": func() error { _, err := f.St.Thread(f.Ctx, 0, parent.ID, 0, 20); return err },
		"tag":    func() error { _, err := f.St.TagPosts(f.Ctx, 0, "A", retwis.Cursor{}, 10); return err },
		"tag info": func() error {
			_, _, err := f.St.TagInfo(f.Ctx, "a", 30, time.Now())
			return err
		},
		"trending": func() error { _, err := f.St.Trending(f.Ctx, 10, time.Now()); return err },
		"mentions": func() error { _, err := f.St.Mentions(f.Ctx, friends[0].ID, retwis.Cursor{}, 10); return err },
		"unread":   func() error { _, err := f.St.UnreadNotifications(f.Ctx, friends[0].ID); return err },
	} {
		if cold, warm := twice(read); cold > 2 || warm != 0 {
			t.Errorf("the %s page took %d round trips cold, %d warm; want at most 2, none", name, cold, warm)
		}
	}
}
