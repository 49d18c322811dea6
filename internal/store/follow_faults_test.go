package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestFaultsLeaveNoHalfWrites follows, unfollows and posts
// among a few users, acknowledged once replicated, on a 3-master cluster
// with two replicas a master (the recommended topology) while a master is
// killed (for good) and another frozen (then resumed), each until its
// replica took over and accepts writes. Once maintenance repaired the
// changes under way (RepairFollows) and took back the posts that failed
// (TakeBackPosts), round after round until none is left, every follow is
// whole or absent: in the follower's following, the followee's followers
// and both parts of the graph, or in none; every pair whose last request
// succeeded is as it asked, one whose last request failed either; no
// record of a change is left; every acknowledged post is on its author's
// profile, and the check finds nothing (no post left behind by a failed
// one).
func TestFaultsLeaveNoHalfWrites(t *testing.T) {
	c := redistest.RecommendedCluster(t)
	url := "redis://" + strings.Join(c.Addrs(), ",")
	opts := store.Options{IDs: must.Value(snowflake.New(1))(t), WaitReplicas: 1, WaitTimeout: time.Second, CommandTimeout: time.Second}
	st := storetest.Open(t, url, opts)
	must.OK(t, st.Migrate(t.Context(), quiet))
	var users []int64
	for i := range 24 {
		u, _, err := st.Register(t.Context(), fmt.Sprint("churn", i), "password1")
		must.OK(t, err)
		users = append(users, u.ID)
	}
	masters := len(c.Masters(t.Context()))
	ch := &churn{st: st, users: users, last: map[[2]int64]outcome{}}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { ch.run(ctx); close(done) }()
	for _, fault := range []string{"kill", "pause"} {
		ch.waitOps(t, 200)
		before := c.Masters(t.Context(), deadNodes(c)...)
		injectFault(t, c, before[0], fault, masters, before, ch.window.Store)
	}
	ch.waitOps(t, 200)
	stop()
	<-done
	if err := c.WaitFailover(t.Context(), masters, deadNodes(c)...); err != nil {
		t.Fatal(err)
	}
	fresh := storetest.Open(t, url, store.Options{})
	repaired, takenBack := maintain(t, fresh)
	storetest.StartWorker(t, url, opts)
	storetest.Drain(t, fresh)
	ok, failed := ch.tally()
	t.Logf("%d follows and unfollows failed during the faults; of the pairs, the last request of %d succeeded, of %d failed; %d posts acknowledged; maintenance completed %d changes and took back %d posts",
		ch.failedInWindow.Load(), ok, failed, len(ch.posts), repaired, takenBack)
	if ch.failedInWindow.Load() == 0 || ok == 0 {
		t.Fatalf("%d requests succeeded and %d failed during the faults: the faults did not hit the follows", ok, ch.failedInWindow.Load())
	}
	ch.verify(t, fresh)
	ch.verifyPosts(t, fresh)
	if rep := storetest.Check(t, fresh, false); len(rep.Problems) > 0 {
		t.Errorf("the check after the repair found %v", storetest.Problems(rep))
	}
}

// maintenanceRounds bounds how many rounds maintain runs.
const maintenanceRounds = 100

// maintain runs the repairs of maintenance round after round, as
// upkeep.Round does (each does a batch of each shard of the queue: the
// changes and posts of a failing shard pile up on the next ones), until
// one finds nothing left: RepairFollows, of every change under way, and
// TakeBackPosts. It returns how many changes it completed and posts it
// took back.
func maintain(t *testing.T, st *store.Store) (repaired, takenBack int) {
	t.Helper()
	for range maintenanceRounds {
		n, err := st.RepairFollows(t.Context(), time.Now().Add(time.Second))
		must.OK(t, err)
		k, err := st.TakeBackPosts(t.Context())
		must.OK(t, err)
		if n+k == 0 {
			return repaired, takenBack
		}
		repaired, takenBack = repaired+n, takenBack+k
	}
	t.Fatalf("maintenance still had repairs to do after %d rounds", maintenanceRounds)
	return repaired, takenBack
}

// churn follows and unfollows among users at random, one goroutine per
// group of followers, so that the requests of a pair are made one after
// the other, and records the last of each pair.
type churn struct {
	st    *store.Store
	users []int64

	mu    sync.Mutex
	last  map[[2]int64]outcome // follower, followee -> the last request
	posts []retwis.Post        // the posts acknowledged
	ops   atomic.Int64         // requests made so far

	window         atomic.Bool // set while a fault lasts
	failedInWindow atomic.Int64
}

// outcome is a request of a pair: a follow or an unfollow, and whether
// it succeeded.
type outcome struct{ follow, ok bool }

// churners is how many goroutines make the requests of a churn.
const churners = 6

// run makes requests until ctx ends.
func (ch *churn) run(ctx context.Context) {
	var wg sync.WaitGroup
	for g := range churners {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 23))
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for n := g; ctx.Err() == nil; n += churners {
				<-tick.C
				if n%3 == 0 {
					ch.post(ctx, ch.users[n%len(ch.users)])
				} else {
					ch.request(ctx, ch.users[n%len(ch.users)], ch.users[rng.IntN(len(ch.users))], rng.IntN(2) == 0)
				}
			}
		})
	}
	wg.Wait()
}

// request makes follower follow or unfollow followee, and records it.
func (ch *churn) request(ctx context.Context, follower, followee int64, follow bool) {
	if follower == followee {
		return
	}
	during := ch.window.Load()
	var err error
	if follow {
		err = ch.st.Follow(ctx, follower, followee)
	} else {
		err = ch.st.Unfollow(ctx, follower, followee)
	}
	// A request the end of the test cuts short fails, or completes: once
	// it has begun writing, it goes on (see Follow).
	if err != nil && during {
		ch.failedInWindow.Add(1)
	}
	ch.mu.Lock()
	ch.last[[2]int64{follower, followee}] = outcome{follow, err == nil}
	ch.mu.Unlock()
	ch.ops.Add(1)
}

// post publishes a post by author, and records it if acknowledged.
func (ch *churn) post(ctx context.Context, author int64) {
	p, err := ch.st.CreatePost(ctx, author, "churn")
	if err == nil {
		ch.mu.Lock()
		ch.posts = append(ch.posts, p)
		ch.mu.Unlock()
	}
}

// waitOps waits until n more requests are made.
func (ch *churn) waitOps(t *testing.T, n int64) {
	t.Helper()
	want := ch.ops.Load() + n
	deadline := time.Now().Add(30 * time.Second)
	for ch.ops.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests made in 30 s; want %d", ch.ops.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tally counts the pairs whose last request succeeded and failed.
func (ch *churn) tally() (ok, failed int) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for _, o := range ch.last {
		if o.ok {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// verify checks through st that every pair requested is followed on
// every side or on none, as its last request asked if that succeeded,
// and that no record of a change under way is left.
func (ch *churn) verify(t *testing.T, st *store.Store) {
	t.Helper()
	b := st.C.B()
	var pairs [][2]int64
	var cmds rueidis.Commands
	for pair := range ch.last {
		spo, ops := schema.GraphEdge(pair[0], schema.RelFollows, pair[1])
		pairs = append(pairs, pair)
		cmds = append(cmds, b.Zscore().Key(schema.Following(pair[0])).Member(itoa(pair[1])).Build(),
			b.Zscore().Key(schema.Followers(pair[1])).Member(itoa(pair[0])).Build(),
			b.Zscore().Key(schema.Graph(pair[0])).Member(spo).Build(),
			b.Zscore().Key(schema.Graph(pair[1])).Member(ops).Build())
	}
	res := st.C.DoMulti(t.Context(), cmds...)
	var whole, absent int
	for i, pair := range pairs {
		var sides [4]bool
		for j := range sides {
			err := res[4*i+j].Error()
			if err != nil && !rueidis.IsRedisNil(err) {
				t.Fatal(err)
			}
			sides[j] = err == nil
		}
		o := ch.last[pair]
		switch {
		case sides != [4]bool{sides[0], sides[0], sides[0], sides[0]}:
			t.Errorf("the follow of %d by %d is half done (following, followers, graph: %v); its last request: %+v", pair[1], pair[0], sides, o)
		case o.ok && sides[0] != o.follow:
			t.Errorf("the follow of %d by %d is %v; its last request, acknowledged, asked for %v", pair[1], pair[0], sides[0], o.follow)
		case !o.ok && sides[0]:
			whole++
		case !o.ok:
			absent++
		}
	}
	t.Logf("of the pairs whose last request failed, %d are followed on every side, %d on none", whole, absent)
	for i := range schema.QueueShards {
		if n := must.Value(st.C.Do(t.Context(), b.Zcard().Key(schema.QueueN(i).Follows).Build()).AsInt64())(t); n > 0 {
			t.Errorf("%d changes under way left on shard %d after the repair", n, i)
		}
	}
}

// verifyPosts checks through st that every post acknowledged is on its
// author's profile.
func (ch *churn) verifyPosts(t *testing.T, st *store.Store) {
	t.Helper()
	b := st.C.B()
	cmds := make(rueidis.Commands, len(ch.posts))
	for i, p := range ch.posts {
		cmds[i] = b.Zscore().Key(schema.UserPosts(p.AuthorID)).Member(itoa(p.ID)).Build()
	}
	for i, r := range st.C.DoMulti(t.Context(), cmds...) {
		if err := r.Error(); err != nil {
			t.Errorf("acknowledged post %d is not among its author's posts: %v", ch.posts[i].ID, err)
		}
	}
}
