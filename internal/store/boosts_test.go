package store_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// boostScene is an author's post, two users who boost it, a follower
// of both boosters (who gets one boost of it) and a follower of the
// author and of a booster (who has the post, and gets no boost).
type boostScene struct {
	author, b1, b2, fan, reader retwis.User
	post                        retwis.Post
}

func (f *fixture) boostScene(t *testing.T) boostScene {
	t.Helper()
	var s boostScene
	s.author, s.b1, s.b2 = f.Register(t, "author"), f.Register(t, "booster1"), f.Register(t, "booster2")
	s.fan, s.reader = f.Register(t, "fan"), f.Register(t, "reader")
	for _, e := range [][2]int64{{s.fan.ID, s.b1.ID}, {s.fan.ID, s.b2.ID}, {s.reader.ID, s.author.ID}, {s.reader.ID, s.b1.ID}} {
		must.OK(t, f.St.Follow(f.Ctx, e[0], e[1]))
	}
	s.post = f.post(t, posts.Draft{Author: s.author.ID, Text: "worth a boost #boosted"})
	return s
}

// boostsIn returns the posts of page that are boosts, as "booster:post".
func boostsIn(page []retwis.Post) []string {
	var out []string
	for _, p := range page {
		if p.Reblog != nil {
			out = append(out, p.Author+":"+itoa(p.Reblog.ID))
		}
	}
	return out
}

// TestBoost: a boost reaches the booster's followers once however many
// boost the post (the first boost wins), and none of those who have the
// post; not the global timeline nor the tag; it is counted once however
// often it is sent, its author is notified once however often it is
// toggled, and taking it back takes it off every timeline and out of
// the count.
func TestBoost(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := f.boostScene(t)
		f.Drain(t)
		first := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
		if first.Reblog == nil || first.Reblog.ID != s.post.ID || first.AuthorID != s.b1.ID || first.Reblog.Body != s.post.Body {
			t.Fatalf("Boost = %+v; want a boost of %d by %d", first, s.post.ID, s.b1.ID)
		}
		again := must.Value(f.St.Boost(f.Ctx, s.b1.ID, first.ID))(t) // boosting the boost boosts the post, once
		if again.ID != first.ID {
			t.Errorf("boosting again made %d; want the first boost %d", again.ID, first.ID)
		}
		f.Drain(t)
		must.Value(f.St.Boost(f.Ctx, s.b2.ID, s.post.ID))(t)
		f.Drain(t)
		want := []string{"booster1:" + itoa(s.post.ID)}
		if got := boostsIn(f.homePosts(t, s.fan.ID)); !slices.Equal(got, want) {
			t.Errorf("the fan's home has boosts %v; want %v", got, want)
		}
		if got := postIDs(f.homePosts(t, s.reader.ID)); !slices.Equal(got, []int64{s.post.ID}) {
			t.Errorf("the author's follower's home = %v; want only the post %d", got, s.post.ID)
		}
		if got := boostsIn(f.homePosts(t, s.b1.ID)); !slices.Equal(got, want) {
			t.Errorf("the booster's own home has boosts %v; want %v", got, want)
		}
		global := must.Value(f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 50))(t)
		if got := postIDs(global.Posts); !slices.Equal(got, []int64{s.post.ID}) {
			t.Errorf("global timeline = %v; want only the post", got)
		}
		if got := f.tagPosts(t, "boosted"); !slices.Equal(got, []int64{s.post.ID}) {
			t.Errorf("tag page = %v; want only the post", got)
		}
		f.wantBoosts(t, s.b1.ID, s.post.ID, 2, true)
		f.wantBoosts(t, s.fan.ID, s.post.ID, 2, false)
		by := must.Value(f.St.RebloggedBy(f.Ctx, 0, s.post.ID, retwis.Cursor{}, 10))(t)
		if len(by.Follows) != 2 || by.Follows[0].User.Username != "booster2" || by.Follows[1].User.Username != "booster1" {
			t.Errorf("reblogged by %+v; want booster2, booster1", by.Follows)
		}
		wantNotes := []string{"reblog booster2 " + itoa(s.post.ID), "reblog booster1 " + itoa(s.post.ID), "follow reader 0"}
		if got := f.notes(t, s.author.ID); !slices.Equal(got, wantNotes) {
			t.Errorf("the author's notifications = %v; want %v", got, wantNotes)
		}

		original := must.Value(f.St.Unboost(f.Ctx, s.b1.ID, s.post.ID))(t)
		if original.ID != s.post.ID {
			t.Errorf("Unboost = %d; want the post %d", original.ID, s.post.ID)
		}
		f.Drain(t)
		if got := boostsIn(f.homePosts(t, s.fan.ID)); len(got) > 0 {
			t.Errorf("the fan's home has boosts %v after the unboost; want none", got)
		}
		if f.Do(t, "EXISTS", schema.Post(first.ID)) != "0" {
			t.Error("the boost taken back is still there")
		}
		f.wantBoosts(t, s.b1.ID, s.post.ID, 1, false)
		profile := must.Value(f.St.Profile(f.Ctx, 0, s.b1, retwis.Cursor{}, 10))(t)
		if len(profile.Page.Posts) > 0 {
			t.Errorf("the booster's profile after the unboost = %v; want none", postIDs(profile.Page.Posts))
		}

		must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
		f.Drain(t)
		if got := f.notes(t, s.author.ID); !slices.Equal(got, wantNotes) {
			t.Errorf("after boosting again, the author's notifications = %v; want still %v", got, wantNotes)
		}
		f.wantBoosts(t, s.b1.ID, s.post.ID, 2, true)
		if rep := f.Check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check found %v", storetest.Problems(rep))
		}
	})
}

// wantBoosts checks post pid's count of boosts and whether viewer
// boosted it.
func (f *fixture) wantBoosts(t *testing.T, viewer, pid, count int64, reblogged bool) {
	t.Helper()
	got := must.Value(f.St.Post(f.Ctx, viewer, pid))(t)
	if got.Reblogs != count || got.Reblogged != reblogged {
		t.Errorf("boosts of %d seen by %d = %d, reblogged %v; want %d, reblogged %v", pid, viewer, got.Reblogs, got.Reblogged, count, reblogged)
	}
}

// TestDeleteBoostedPost: deleting a post deletes its boosts, wherever
// they went, and its counts.
func TestDeleteBoostedPost(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := f.boostScene(t)
		f.Drain(t)
		boost := must.Value(f.St.Boost(f.Ctx, s.b2.ID, s.post.ID))(t)
		f.Drain(t)
		if got := boostsIn(f.homePosts(t, s.fan.ID)); len(got) != 1 {
			t.Fatalf("the fan's home has boosts %v; want one", got)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, s.author.ID, s.post.ID))
		f.Drain(t)
		for _, key := range []string{schema.Post(boost.ID), schema.RebloggedBy(s.post.ID), schema.Counts(s.post.ID)} {
			if f.Do(t, "EXISTS", key) != "0" {
				t.Errorf("%s is still there", key)
			}
		}
		if got := f.Strs(t, "LRANGE", schema.Home(s.fan.ID), "0", "-1"); len(got) > 0 {
			t.Errorf("the fan's home list = %v; want it empty", got)
		}
		if got := f.Strs(t, "ZRANGE", schema.UserPosts(s.b2.ID), "0", "-1"); len(got) > 0 {
			t.Errorf("the booster's posts = %v; want none", got)
		}
		if got := f.Do(t, "HGET", schema.Boosts(s.b2.ID), itoa(s.post.ID)); got != "" {
			t.Errorf("the booster's mark is still there: %s", got)
		}
		if got := f.notes(t, s.author.ID); !slices.Equal(got, []string{"follow reader 0"}) {
			t.Errorf("the author's notifications = %v; want only the follow", got)
		}
	})
}

// TestCheckBoosts: the check finds and repairs a wrong count of boosts,
// a booster missing from who boosted a post, and a mark of a boost that
// is gone.
func TestCheckBoosts(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := f.boostScene(t)
		for _, u := range []int64{s.b1.ID, s.b2.ID} {
			must.Value(f.St.Boost(f.Ctx, u, s.post.ID))(t)
		}
		f.Drain(t)
		pid := itoa(s.post.ID)
		f.Do(t, "HSET", schema.Counts(s.post.ID), schema.FieldReblogs, "7")
		f.Do(t, "ZREM", schema.RebloggedBy(s.post.ID), itoa(s.b1.ID))
		f.Do(t, "HSET", schema.Boosts(s.fan.ID), pid, "999999")
		rep := f.check(t, true)
		want := []string{"boosts: a boost missing from who boosted its post ×1", "boosts: a count of boosts that is wrong ×1",
			"boosts: a mark of a boost that is gone ×1"}
		if got := storetest.Problems(rep); !slices.Equal(got, want) {
			t.Errorf("the check found %v; want %v", got, want)
		}
		if rep := f.check(t, false); len(rep.Problems) > 0 {
			t.Errorf("after the repair, the check found %v", storetest.Problems(rep))
		}
		f.wantBoosts(t, s.b1.ID, s.post.ID, 2, true)
		f.wantBoosts(t, s.fan.ID, s.post.ID, 2, false)
	})
}

// TestBoostBackfilled: a follow fills the home timeline with the
// followee's boosts too, but a page shows a post once: not its boost
// beside it.
func TestBoostBackfilled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.boostScene(t)
	f.Drain(t)
	boost := must.Value(f.St.Boost(f.Ctx, s.b2.ID, s.post.ID))(t)
	f.Drain(t)
	must.OK(t, f.St.Follow(f.Ctx, s.reader.ID, s.b2.ID)) // the reader follows the author: has the post
	f.Drain(t)
	if list := f.Strs(t, "LRANGE", schema.Home(s.reader.ID), "0", "-1"); !slices.Contains(list, itoa(boost.ID)) {
		t.Fatalf("the backfill left the boost out: %v; the test needs it in", list)
	}
	if got := postIDs(f.homePosts(t, s.reader.ID)); !slices.Equal(got, []int64{s.post.ID}) {
		t.Errorf("the reader's home = %v; want the post once, %d", got, s.post.ID)
	}
}

// TestBoostJobsReplayed: a boost's jobs carried out again (a worker
// that died before acknowledging one) count nothing twice and push
// nothing twice.
func TestBoostJobsReplayed(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := f.boostScene(t)
		f.Drain(t)
		boost := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
		f.Drain(t)
		replay := func(kind string) {
			t.Helper()
			q := schema.QueueOf(s.b1.ID)
			must.OK(t, f.Raw.Do(f.Ctx, schema.BoostJob(f.Raw.B(), q, kind, boost.ID, s.b1.ID, s.post.ID)).Error())
			f.Drain(t)
		}
		replay(schema.JobBoost)
		f.wantBoosts(t, s.b1.ID, s.post.ID, 1, true)
		if got := boostsIn(f.homePosts(t, s.fan.ID)); len(got) != 1 {
			t.Errorf("after the boost's job again, the fan's home has boosts %v; want one", got)
		}
		if got := f.notes(t, s.author.ID); len(got) != 2 { // the boost, and the reader's follow
			t.Errorf("after the boost's job again, the author's notifications = %v", got)
		}
		must.Value(f.St.Unboost(f.Ctx, s.b1.ID, s.post.ID))(t)
		f.Drain(t)
		replay(schema.JobUnboost)
		f.wantBoosts(t, s.b1.ID, s.post.ID, 0, false)
		if n := f.Do(t, "HGET", schema.Counts(s.post.ID), schema.FieldReblogs); n != "" {
			t.Errorf("after the unboost's job again, the count is %s; want none (0)", n)
		}
	})
}

// TestUnboostHidden: a boost of a post its booster no longer sees (its
// author blocked them) can still be taken back.
func TestUnboostHidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.boostScene(t)
	boost := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
	f.Drain(t)
	must.OK(t, f.St.Block(f.Ctx, s.author.ID, s.b1.ID))
	if _, err := f.St.Unboost(f.Ctx, s.b1.ID, s.post.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("unboosting a post no longer seen: %v; want not found", err)
	}
	f.Drain(t)
	if f.Do(t, "EXISTS", schema.Post(boost.ID)) != "0" || f.Do(t, "HGET", schema.Boosts(s.b1.ID), itoa(s.post.ID)) != "" {
		t.Error("the boost of a post no longer seen stays")
	}
}

// TestBoostMemory: what a boost keeps in Redis once delivered (the
// boost's hash, its entries in its booster's posts and home timeline,
// the mark, who boosted, the count, the author's notification; the
// boosters' keys exist already, as most users' would) stays under 600
// bytes; the figure is logged for docs/PERFORMANCE.md:
//
//	go test ./internal/store -run TestBoostMemory -v
func TestBoostMemory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	author := f.Register(t, "author")
	const boosters, each = 20, 16
	first := f.post(t, posts.Draft{Author: author.ID, Text: "boost me first"})
	users := make([]retwis.User, boosters)
	for i := range users {
		users[i] = f.Register(t, fmt.Sprint("booster", i))
		must.Value(f.St.Boost(f.Ctx, users[i].ID, first.ID))(t) // their keys made before the measure
	}
	f.Drain(t)
	// used_memory counts the clients' buffers too, which a loaded machine
	// swells for a while: the least of three measures is the boosts'.
	per := math.Inf(1)
	for try := 0; try < 3 && per > 600; try++ {
		var pids []int64
		for i := range each {
			pids = append(pids, f.post(t, posts.Draft{Author: author.ID, Text: fmt.Sprint("boost me ", try, " ", i)}).ID)
		}
		f.Drain(t)
		before := f.usedMemory(t)
		for _, u := range users {
			for _, pid := range pids {
				must.Value(f.St.Boost(f.Ctx, u.ID, pid))(t)
			}
		}
		f.Drain(t)
		per = min(per, float64(f.usedMemory(t)-before)/float64(boosters*each))
	}
	t.Logf("%.0f bytes per boost", per)
	if per > 600 {
		t.Errorf("%.0f bytes per boost; want at most 600", per)
	}
}

// usedMemory returns Redis's used_memory.
func (f *fixture) usedMemory(t *testing.T) int64 {
	t.Helper()
	for line := range strings.SplitSeq(f.Do(t, "INFO", "memory"), "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			return must.Value(strconv.ParseInt(v, 10, 64))(t)
		}
	}
	t.Fatal("INFO memory without used_memory")
	return 0
}

// TestBoostAfterUnfollow: a follower who unfollows the booster whose
// boost reached them first gets another followee's boost of the post
// after: the unfollow takes the first boost off their home timeline and
// out of the boosts it got.
func TestBoostAfterUnfollow(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		s := f.boostScene(t) // the fan follows both boosters, not the author
		f.Drain(t)
		first := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
		f.Drain(t)
		if got := boostsIn(f.homePosts(t, s.fan.ID)); !slices.Equal(got, []string{"booster1:" + itoa(s.post.ID)}) {
			t.Fatalf("the fan's home has boosts %v; want booster1's", got)
		}
		must.OK(t, f.St.Unfollow(f.Ctx, s.fan.ID, s.b1.ID))
		f.Drain(t)
		if list := f.Strs(t, "LRANGE", schema.Home(s.fan.ID), "0", "-1"); slices.Contains(list, itoa(first.ID)) {
			t.Fatalf("the unfollow left booster1's boost in the fan's home: %v", list)
		}
		must.Value(f.St.Boost(f.Ctx, s.b2.ID, s.post.ID))(t)
		f.Drain(t)
		if got := boostsIn(f.homePosts(t, s.fan.ID)); !slices.Equal(got, []string{"booster2:" + itoa(s.post.ID)}) {
			t.Errorf("after unfollowing booster1, the fan's home has boosts %v; want booster2's", got)
		}
		if rep := f.Check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check found %v", storetest.Problems(rep))
		}
	})
}

// TestDeleteBoost: deleting a boost as a post (the pages' Delete, the
// API's DELETE of its status) takes it back as unboosting does: the
// booster's mark goes with it, and the post's count, and the take-back
// is recorded for maintenance (see delivery.RedeliverVanished).
func TestDeleteBoost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.boostScene(t)
	boost := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
	f.Drain(t)
	must.OK(t, f.St.DeletePost(f.Ctx, s.b1.ID, boost.ID))
	f.Drain(t)
	if got := must.Value(f.St.Post(f.Ctx, s.b1.ID, s.post.ID))(t); got.Reblogged || got.Reblogs != 0 {
		t.Errorf("after its boost was deleted, the post reads reblogged %v, %d boosts; want neither", got.Reblogged, got.Reblogs)
	}
	if n := f.Do(t, "HLEN", schema.Boosts(s.b1.ID)); n != "0" {
		t.Errorf("the booster keeps %s marks of boosts", n)
	}
	if got := boostsIn(f.Home(t, s.fan.ID, 10)(retwis.Cursor{}).Posts); len(got) != 0 {
		t.Errorf("the boost deleted stays on a follower's home: %v", got)
	}
	last := must.Value(f.Raw.Do(f.Ctx, f.Raw.B().Xrevrange().Key(schema.RecentBoosts).End("+").Start("-").Count(1).Build()).AsXRange())(t)
	if len(last) != 1 || last[0].FieldValues[schema.JobKind] != schema.JobUnboost || last[0].FieldValues[schema.JobPost] != itoa(boost.ID) {
		t.Errorf("the take-back is not recorded among the recent boosts (for maintenance to redo its job if lost): %v", last)
	}
	again := must.Value(f.St.Boost(f.Ctx, s.b1.ID, s.post.ID))(t)
	if again.ID == boost.ID || again.Reblog == nil {
		t.Errorf("boosting again after the deletion gave %+v; want a new boost", again)
	}
}
