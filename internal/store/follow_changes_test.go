package store_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestRefusedFollowIsRepaired: on a cluster, a follow and an unfollow
// whose writes to the followee's master are refused (NOREPLICAS: the
// master wants a replica it does not have) fail, leaving the change
// half done and its record; once the master accepts writes again,
// RepairFollows completes each by follower's set of users followed:
// the follow complete on both sides, in the graph and in the home
// timeline, the unfollow absent from all of them, no record left, and
// the check finds nothing. A follow whose writes all succeed leaves no
// record.
func TestRefusedFollowIsRepaired(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, cluster.URL(t), store.Options{}, true)
	follower, followee, master := apartOnCluster(t, f)
	p := must.Value(f.St.CreatePost(f.Ctx, followee.ID, "before the follow"))(t)
	f.Drain(t)
	other := f.Register(t, "other")
	must.OK(t, f.St.Follow(f.Ctx, follower.ID, other.ID))
	if n := f.changesUnderWay(t); n != 0 {
		t.Fatalf("a follow that succeeded left %d records of changes under way", n)
	}

	refuse := func(on bool) {
		redistest.Do(t, master, "CONFIG", "SET", "min-replicas-to-write", map[bool]string{true: "1", false: "0"}[on])
	}
	t.Cleanup(func() { // the next test of the shared cluster takes it as it was
		master.Do(context.Background(), master.B().ConfigSet().ParameterValue().ParameterValue("min-replicas-to-write", "0").Build())
	})
	refuse(true)
	if err := f.St.Follow(f.Ctx, follower.ID, followee.ID); err == nil {
		t.Fatal("a follow whose followee's master refuses writes succeeded")
	}
	refuse(false)
	f.wantHalfThenRepaired(t, follower, followee, true)
	if home := postIDs(f.homePosts(t, follower.ID)); !slices.Contains(home, p.ID) {
		t.Errorf("home timeline after the repaired follow = %v; want post %d in it", home, p.ID)
	}

	refuse(true)
	if err := f.St.Unfollow(f.Ctx, follower.ID, followee.ID); err == nil {
		t.Fatal("an unfollow whose followee's master refuses writes succeeded")
	}
	refuse(false)
	f.wantHalfThenRepaired(t, follower, followee, false)
	if home := postIDs(f.homePosts(t, follower.ID)); slices.Contains(home, p.ID) {
		t.Errorf("home timeline after the repaired unfollow = %v; want no post %d", home, p.ID)
	}
}

// wantHalfThenRepaired checks that the check finds the change of the
// follow of followee by follower half done, that RepairFollows
// completes it as following says, leaving no record, and that the
// check then finds nothing.
func (f *fixture) wantHalfThenRepaired(t *testing.T, follower, followee retwis.User, following bool) {
	t.Helper()
	if rep := f.Check(t, false); len(rep.Problems) == 0 {
		t.Fatal("the refused change left nothing half done: the test does not test a refusal midway")
	}
	if n := f.changesUnderWay(t); n != 1 {
		t.Fatalf("%d records of changes under way; want the failed one", n)
	}
	n, err := f.St.RepairFollows(f.Ctx, time.Now().Add(time.Second))
	if err != nil || n != 1 {
		t.Fatalf("RepairFollows = %d, %v; want 1", n, err)
	}
	f.wantFollow(t, follower.ID, followee.ID, following)
	if n := f.changesUnderWay(t); n != 0 {
		t.Errorf("%d records of changes under way after the repair", n)
	}
	if rep := f.Check(t, false); len(rep.Problems) > 0 {
		t.Errorf("the check after the repair found %v", storetest.Problems(rep))
	}
}

// wantFollow checks that the follow of followee by follower is on
// every side (the follower's following, the followee's followers, both
// parts of the graph) if following, and on none if not.
func (f *fixture) wantFollow(t *testing.T, follower, followee int64, following bool) {
	t.Helper()
	spo, ops := schema.GraphEdge(follower, schema.RelFollows, followee)
	for _, side := range [][2]string{
		{schema.Following(follower), itoa(followee)},
		{schema.Followers(followee), itoa(follower)},
		{schema.Graph(follower), spo},
		{schema.Graph(followee), ops},
	} {
		if there := f.Do(t, "ZSCORE", side[0], side[1]) != ""; there != following {
			t.Errorf("%s in %s: %v; want %v", side[1], side[0], there, following)
		}
	}
}

// changesUnderWay counts the records of follows and unfollows under way
// on every shard of the queue.
func (f *fixture) changesUnderWay(t *testing.T) int {
	t.Helper()
	n := 0
	for i := range schema.QueueShards {
		n += int(must.Value(f.Raw.Do(f.Ctx, f.Raw.B().Zcard().Key(schema.QueueN(i).Follows).Build()).AsInt64())(t))
	}
	return n
}

// homePosts reads the first page of uid's home timeline.
func (f *fixture) homePosts(t *testing.T, uid int64) []retwis.Post {
	t.Helper()
	page, _, err := f.St.HomeTimeline(f.Ctx, uid, retwis.Cursor{}, 50)
	must.OK(t, err)
	return page.Posts
}

// apartOnCluster signs up users until two of them, a follower and a
// followee, have their keys on different masters, the follower's shard
// of the queue too being apart from the followee's master, and returns
// them with the followee's master.
func apartOnCluster(t *testing.T, f *fixture) (follower, followee retwis.User, master rueidis.Client) {
	t.Helper()
	var users []retwis.User
	for i := range 20 {
		u := f.Register(t, fmt.Sprint("apart", i))
		for _, v := range users {
			m := f.masterOf(t, schema.Followers(u.ID))
			if a := f.masterOf(t, schema.Following(v.ID)); a != m && f.masterOf(t, schema.QueueOf(v.ID).Follows) != m {
				return v, u, f.Raw.Nodes()[m]
			}
		}
		users = append(users, u)
	}
	t.Fatal("no two users of 20 apart on the cluster")
	return
}

// masterOf returns the address of the master that holds key: the one
// node that answers for it without redirecting.
func (f *fixture) masterOf(t *testing.T, key string) string {
	t.Helper()
	for addr, node := range f.Raw.Nodes() {
		if node.Do(f.Ctx, node.B().Exists().Key(key).Build()).Error() == nil {
			return addr
		}
	}
	t.Fatalf("no node holds %s", key)
	return ""
}

// TestMaintenanceCompletesChanges: a maintenance round completes by
// itself, by the follower's set of users followed, the follows and
// unfollows recorded as under way longer than FollowChangeGrace ago (a
// follow found in that set whole, one not found absent, one of an
// account that is gone ended), leaves a younger one to its request, and
// takes back a post recorded to be taken back; it reports both.
func TestMaintenanceCompletesChanges(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		a, b, c := f.Register(t, "a"), f.Register(t, "b"), f.Register(t, "c")
		const gone = 99999 // a user that does not exist
		failed := must.Value(f.St.CreatePost(f.Ctx, c.ID, "failed, then taken back"))(t)
		f.Drain(t)
		old := strconv.FormatInt(time.Now().Add(-store.FollowChangeGrace-time.Second).UnixMilli(), 10)
		young := strconv.FormatInt(time.Now().UnixMilli(), 10)
		spo, ops := schema.GraphEdge(c.ID, schema.RelFollows, b.ID)
		for _, cmd := range [][]string{
			// a follows b: only in a's following (its request failed after that).
			{"ZADD", schema.Following(a.ID), "1", itoa(b.ID)},
			{"ZADD", schema.QueueN(1).Follows, old, schema.FollowChange(a.ID, b.ID, 1)},
			// c no longer follows b: its unfollow failed after a's following.
			{"ZADD", schema.Followers(b.ID), "1", itoa(c.ID)},
			{"ZADD", schema.Graph(c.ID), "0", spo},
			{"ZADD", schema.Graph(b.ID), "0", ops},
			{"ZADD", schema.QueueN(2).Follows, old, schema.FollowChange(c.ID, b.ID, 2)},
			// a follows an account that is gone.
			{"ZADD", schema.Following(a.ID), "1", itoa(gone)},
			{"ZADD", schema.QueueN(3).Follows, old, schema.FollowChange(a.ID, gone, 3)},
			// c follows a, under way: its request may be writing still.
			{"ZADD", schema.Following(c.ID), "1", itoa(a.ID)},
			{"ZADD", schema.QueueN(4).Follows, young, schema.FollowChange(c.ID, a.ID, 4)},
			{"ZADD", schema.QueueN(5).Unpublish, old, schema.Unpublished(failed.ID, c.ID)},
		} {
			f.Do(t, cmd...)
		}
		rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
		if err != nil || rep.Follows != 3 || rep.TakenBack != 1 {
			t.Fatalf("maintenance round: %+v, %v; want 3 follows completed, 1 post taken back", rep, err)
		}
		f.wantFollow(t, a.ID, b.ID, true)
		f.wantFollow(t, c.ID, b.ID, false)
		f.wantFollow(t, a.ID, gone, false)
		if n := f.changesUnderWay(t); n != 1 {
			t.Errorf("%d changes under way after maintenance; want the one younger than FollowChangeGrace", n)
		}
		if f.Do(t, "EXISTS", schema.Post(failed.ID)) != "0" || f.unpublishing(t) != 0 {
			t.Error("maintenance did not take back the post recorded to be")
		}
	})
}
