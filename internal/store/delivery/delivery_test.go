package delivery_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// runWorker runs a delivery worker with opts until the test ends.
func runWorker(t testing.TB, st *store.Store, opts delivery.Options) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { delivery.New(st, opts).Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// TestSlowJobNotTakenOver runs a job whose batches take a while, for
// longer in all than the claim idle time, next to a worker that takes
// over idle jobs: the job's own worker renews its claim after each
// batch, so nobody else runs it. A batch takes 150ms, the claim idle
// time is 1s: a loaded machine may slow a batch down a lot before the
// job looks idle.
func TestSlowJobNotTakenOver(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author := f.Register(t, "slow")
	for i := range 10 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", author.ID, "}"), "1", fmt.Sprint(500+i))
	}
	var mine, taken atomic.Int64
	started := make(chan struct{})
	runWorker(t, f.St, delivery.Options{Consumer: "slow", Batch: 1, ClaimIdle: -1, Block: 20 * time.Millisecond,
		Progress: func(delivery.Progress) {
			if mine.Add(1) == 1 {
				close(started)
			}
			time.Sleep(150 * time.Millisecond) // a slow batch
		}})
	must.Value(f.St.CreatePost(f.Ctx, author.ID, "slow but alive"))(t)
	<-started // the job is the slow worker's; now a worker that takes over idle jobs comes
	runWorker(t, f.St, delivery.Options{Consumer: "eager", Batch: 1, ClaimIdle: time.Second, Block: 20 * time.Millisecond,
		Progress: func(delivery.Progress) { taken.Add(1) }})
	f.Drain(t)
	if taken.Load() != 0 || mine.Load() != 10 {
		t.Fatalf("the job's worker did %d batches and another worker %d; want 10 and 0", mine.Load(), taken.Load())
	}
}

// TestOrphanSnapshotRemoved kills a worker half-way through a job of
// several batches, whose follower snapshot it made; the job then
// vanishes from the stream (as when its record is lost). Maintenance
// removes the snapshot and its registration.
func TestOrphanSnapshotRemoved(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author := f.Register(t, "author")
	for i := range 10 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", author.ID, "}"), "1", fmt.Sprint(700+i))
	}
	must.Value(f.St.CreatePost(f.Ctx, author.ID, "interrupted"))(t)
	ctx, kill := context.WithCancel(context.Background())
	delivery.New(f.St, delivery.Options{Consumer: "doomed", Drain: -1, Batch: 2, Block: 20 * time.Millisecond,
		Progress: func(delivery.Progress) { kill() }}).Run(ctx)
	snaps := f.Strs(t, "KEYS", "followers:{*}:job:*")
	if len(snaps) != 1 {
		t.Fatalf("snapshots = %v; want the interrupted job's", snaps)
	}
	job := snaps[0][strings.LastIndex(snaps[0], ":")+1:]
	f.Do(t, "XDEL", schema.QueueOf(author.ID).Stream, job)
	rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep"}), deletion.New(f.St))
	if err != nil {
		t.Fatal(err)
	}
	if left := f.Strs(t, "KEYS", "followers:{*}:job:*"); len(left) != 0 || f.Do(t, "HLEN", schema.QueueOf(author.ID).Snapshots) != "0" {
		t.Fatalf("after maintenance: snapshots %v, registrations %s", left, f.Do(t, "HLEN", schema.QueueOf(author.ID).Snapshots))
	}
	if rep.Orphans != 2 { // the progress record and the snapshot
		t.Fatalf("maintenance removed %d orphans; want 2", rep.Orphans)
	}
}

// TestDeletedPostNotDelivered runs the delivery of a post after its
// deletion, as when the undeliver job overtakes the deliver job: the post
// must not come back into anyone's timeline.
func TestDeletedPostNotDelivered(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "regretted"))(t)
	if err := f.St.DeletePost(f.Ctx, author.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	// Undeliver first, then deliver: the order the jobs may run in when
	// workers run them in parallel.
	if jobs := f.Do(t, "XLEN", schema.QueueOf(author.ID).Stream); jobs != "2" {
		t.Fatalf("jobs = %v; want deliver and undeliver", jobs)
	}
	f.Do(t, "XADD", schema.QueueOf(author.ID).Stream, "*", "kind", "deliver", "post", fmt.Sprint(p.ID), "author", fmt.Sprint(author.ID))
	runWorker(t, f.St, delivery.Options{Consumer: "w", Parallel: 1, Block: 20 * time.Millisecond})
	f.Drain(t)
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", fan.ID, "}"), "0", "-1"); slices.Contains(got, fmt.Sprint(p.ID)) {
		t.Fatalf("the deleted post came back into the fan's timeline: %v", got)
	}
}

// TestStoppedWorkerDrains stops a worker in the middle of a job of
// several batches: it finishes the job before it returns, so nothing is
// left for another worker to take over.
func TestStoppedWorkerDrains(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author := f.Register(t, "author")
	for i := range 10 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", author.ID, "}"), "1", fmt.Sprint(600+i))
	}
	p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "finish what you started"))(t)
	ctx, stop := context.WithCancel(context.Background())
	delivery.New(f.St, delivery.Options{Consumer: "stopping", Batch: 2, Block: 20 * time.Millisecond,
		Progress: func(delivery.Progress) { stop() }}).Run(ctx)
	if n := f.Do(t, "XLEN", schema.QueueOf(author.ID).Stream); n != "0" {
		t.Fatalf("%s jobs left behind by a worker that was stopped", n)
	}
	if got := f.Strs(t, "LRANGE", "posts:{609}", "0", "-1"); !slices.Equal(got, []string{fmt.Sprint(p.ID)}) {
		t.Fatalf("the last follower holds %v", got)
	}
}

// TestFailedJobRetried makes a job fail (a follower's timeline is
// damaged) on a worker that takes over nobody's jobs: once the damage is
// repaired, the same worker tries again within seconds, instead of
// leaving the job to be claimed.
func TestFailedJobRetried(t *testing.T) {
	t.Parallel()
	logs := &syncbuf.Buffer{}
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{Log: slog.New(slog.NewTextHandler(logs, nil))}, false)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	home := fmt.Sprint("posts:{", fan.ID, "}")
	f.Do(t, "SET", home, "damaged")
	runWorker(t, f.St, delivery.Options{Consumer: "w", ClaimIdle: -1, Block: 20 * time.Millisecond})
	p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "delivered at the second try"))(t)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "job queue worker"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the worker logged no failure of the job:\n%s", logs)
		}
	}
	if n := f.Do(t, "XLEN", schema.QueueOf(author.ID).Stream); n != "1" {
		t.Fatalf("the failing job is gone (%s jobs)", n)
	}
	f.Do(t, "DEL", home)
	f.Drain(t)
	if got := f.Strs(t, "LRANGE", home, "0", "-1"); !slices.Equal(got, []string{fmt.Sprint(p.ID)}) {
		t.Fatalf("the fan holds %v", got)
	}
}

// TestGoneConsumersRemoved leaves two workers in the group: one with
// nothing pending, idle long enough, is removed; one with a job pending
// stays until its job is taken over.
func TestGoneConsumersRemoved(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	q := schema.QueueOf(author.ID).Stream
	f.Do(t, "XGROUP", "CREATECONSUMER", q, "deliverers", "ghost")
	must.Value(f.St.CreatePost(f.Ctx, author.ID, "pending with a dead worker"))(t)
	f.Do(t, "XREADGROUP", "GROUP", "deliverers", "dead", "COUNT", "1", "STREAMS", q, ">")
	const goneAfter = 50 * time.Millisecond
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		idle := consumers(t, f, q)
		if idle["ghost"] >= goneAfter && idle["dead"] >= goneAfter { // both would be gone but for what is pending
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workers are idle for %v; want %v", idle, goneAfter)
		}
	}
	rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", GoneAfter: goneAfter, ClaimIdle: time.Hour}), deletion.New(f.St))
	if err != nil {
		t.Fatal(err)
	}
	left := consumers(t, f, q)
	_, ghost := left["ghost"]
	_, dead := left["dead"]
	if rep.Consumers != 1 || ghost || !dead {
		t.Fatalf("removed %d; the group now has %v; want ghost gone and dead kept", rep.Consumers, left)
	}
}

// consumers returns the consumers of the delivery group on stream, each
// with how long it has been idle.
func consumers(t *testing.T, f *fixture, stream string) map[string]time.Duration {
	t.Helper()
	infos := must.Value(f.Raw.Do(f.Ctx, f.Raw.B().XinfoConsumers().Key(stream).Group("deliverers").Build()).ToArray())(t)
	out := map[string]time.Duration{}
	for _, info := range infos {
		m := must.Value(info.AsMap())(t)
		name, idle := m["name"], m["idle"]
		out[must.Value(name.ToString())(t)] = time.Duration(must.Value(idle.AsInt64())(t)) * time.Millisecond
	}
	return out
}

// TestVanishedJobRedelivered loses a post's delivery job, as a failover
// that discards a master's last writes can: maintenance finds the post
// (on the global timeline, not marked delivered, no job queued) and
// delivers it. A post whose job is still queued is left to its job.
func TestVanishedJobRedelivered(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	f := newFixtureWith(t, r.URL, store.Options{}, false)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	lost := must.Value(f.St.CreatePost(f.Ctx, author.ID, "its job is lost"))(t)
	f.Do(t, "XTRIM", schema.QueueOf(author.ID).Stream, "MAXLEN", "0")
	queued := must.Value(f.St.CreatePost(f.Ctx, author.ID, "its job waits"))(t)
	old := strconv.FormatInt(time.Now().Add(-2*time.Minute).Unix(), 10)
	for _, p := range []retwis.Post{lost, queued} {
		f.Do(t, "HSET", fmt.Sprint("post:", p.ID), "time", old)
	}
	rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
	if err != nil || rep.Redelivered != 1 {
		t.Fatalf("maintenance redelivered %d posts (%v); want 1", rep.Redelivered, err)
	}
	storetest.StartWorker(t, r.URL, store.Options{})
	f.Drain(t)
	home := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", fan.ID, "}"), "0", "-1")
	if !slices.Equal(home, []string{itoa(queued.ID), itoa(lost.ID)}) {
		t.Fatalf("the fan's home timeline = %v; want both posts", home)
	}
	if ms, _ := strconv.ParseInt(f.Do(t, "HGET", fmt.Sprint("post:", lost.ID), "delivered"), 10, 64); time.Since(time.UnixMilli(ms)) > time.Minute {
		t.Fatal("the delivered post is not marked with the time of its delivery")
	}
	if rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St)); err != nil || rep.Redelivered != 0 {
		t.Fatalf("the next round redelivered %d posts (%v); want none", rep.Redelivered, err)
	}
}

// TestDeliveryDelays: a delivered post's delay, from its id's time to its
// job's end, is read back; one made before since is left out.
func TestDeliveryDelays(t *testing.T) {
	t.Parallel()
	gen, err := snowflake.New(1)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{IDs: gen}, true)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	if _, err := f.St.CreatePost(f.Ctx, author.ID, "before"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // the posts measured have ids of a later millisecond than since
	since := time.Now()
	for range 3 {
		if _, err := f.St.CreatePost(f.Ctx, author.ID, "measured"); err != nil {
			t.Fatal(err)
		}
	}
	f.Drain(t)
	delays, err := f.St.DeliveryDelays(f.Ctx, []int64{author.ID}, since)
	if err != nil || len(delays) != 3 {
		t.Fatalf("delays %v, %v; want the 3 posts made since", delays, err)
	}
	for _, d := range delays {
		if d < 0 || d > 10*time.Second {
			t.Errorf("delay %s; want the few milliseconds the worker took", d)
		}
	}
}

// TestBacklogDeliveredTogether queues a backlog before any worker runs:
// posts of six authors, one of whom has more followers than a batch and
// one a celebrity, some posts deleted before their delivery, and a
// follower's list already holding the newest posts (so the rest arrive
// late). A worker reading many jobs at once then leaves every follower's
// home timeline with exactly the live posts of the authors followed,
// newest first, once each, and the global timeline without the deleted
// posts.
func TestBacklogDeliveredTogether(t *testing.T) {
	t.Parallel()
	gen := must.Value(snowflake.New(3))(t)
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{IDs: gen, CelebrityThreshold: 5}, false)
	authors := make([]retwis.User, 6)
	for i := range authors {
		authors[i] = f.Register(t, fmt.Sprint("author", i))
	}
	readers := make([]retwis.User, 5)
	follows := map[int64][]int64{} // reader -> authors
	for i := range readers {
		readers[i] = f.Register(t, fmt.Sprint("reader", i))
		for k, a := range authors[:5] { // author5 is followed by nobody; author0 by all five
			if (i+k)%2 == 0 || k == 0 {
				if err := f.St.Follow(f.Ctx, readers[i].ID, a.ID); err != nil {
					t.Fatal(err)
				}
				follows[readers[i].ID] = append(follows[readers[i].ID], a.ID)
			}
		}
	}
	star := authors[4]
	for i := range 6 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", star.ID, "}"), "1", fmt.Sprint(900+i))
	}
	var posts []retwis.Post
	for i := range 120 {
		p, err := f.St.CreatePost(f.Ctx, authors[(i*7)%len(authors)].ID, fmt.Sprint("post ", i))
		if err != nil {
			t.Fatal(err)
		}
		posts = append(posts, p)
	}
	deleted := map[int64]bool{}
	for i, p := range posts {
		if i%11 == 3 {
			if err := f.St.DeletePost(f.Ctx, p.AuthorID, p.ID); err != nil {
				t.Fatal(err)
			}
			deleted[p.ID] = true
		}
	}
	want := func(r retwis.User) []int64 {
		ids := []int64{}
		for i := len(posts) - 1; i >= 0; i-- {
			if p := posts[i]; !deleted[p.ID] && slices.Contains(follows[r.ID], p.AuthorID) {
				ids = append(ids, p.ID)
			}
		}
		return ids
	}
	var newest []string
	for _, p := range want(readers[1])[:10] {
		newest = append([]string{fmt.Sprint(p)}, newest...)
	}
	f.Do(t, append([]string{"LPUSH", fmt.Sprint("posts:{", readers[1].ID, "}")}, newest...)...)
	runWorker(t, f.St, delivery.Options{Consumer: "w", Jobs: 64, Batch: 4, Block: 20 * time.Millisecond})
	f.Drain(t)
	for _, r := range readers {
		if got := storetest.PageAll(t, f.Home(t, r.ID, 7), nil); !slices.Equal(got, want(r)) {
			t.Errorf("%s's home timeline = %v; want %v", r.Username, got, want(r))
		}
		var fanned []string // the list: all but the celebrity's posts
		for _, p := range want(r) {
			if !slices.ContainsFunc(posts, func(q retwis.Post) bool { return q.ID == p && q.AuthorID == star.ID }) {
				fanned = append(fanned, fmt.Sprint(p))
			}
		}
		if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", r.ID, "}"), "0", "-1"); !slices.Equal(got, fanned) {
			t.Errorf("%s's home list = %v; want %v", r.Username, got, fanned)
		}
	}
	for _, s := range f.Strs(t, "LRANGE", "timeline", "0", "-1") {
		if p, _ := strconv.ParseInt(s, 10, 64); deleted[p] {
			t.Errorf("the global timeline holds deleted post %d", p)
		}
	}
}

// TestWorkerKilledMidDelivery stops a worker half-way through a job, as a
// crash would; another worker claims the job and finishes it, and every
// follower gets the post exactly once.
func TestWorkerKilledMidDelivery(t *testing.T) {
	t.Parallel()
	url := redistest.Start(t).URL
	f := newFixtureWith(t, url, store.Options{}, false)
	author := f.Register(t, "author")
	for i := range 250 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", author.ID, "}"), "1", strconv.Itoa(1000+i))
	}
	p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "must reach everybody once"))(t)

	ctx, kill := context.WithCancel(context.Background())
	err := delivery.New(f.St, delivery.Options{Consumer: "doomed", Drain: -1, Batch: 50, Block: 20 * time.Millisecond,
		Progress: func(pr delivery.Progress) {
			if pr.Done >= 100 {
				kill()
			}
		}}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Do(t, "HLEN", schema.QueueOf(author.ID).Progress); n != "1" {
		t.Fatalf("no progress recorded for the interrupted job")
	}
	if n := f.Do(t, "LLEN", "posts:{1200}"); n != "0" {
		t.Fatalf("the doomed worker reached follower 200: the test did not interrupt it")
	}

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		delivery.New(f.St, delivery.Options{Consumer: "heir", Batch: 50, Block: 20 * time.Millisecond, ClaimIdle: 50 * time.Millisecond}).Run(ctx)
	}()
	f.Drain(t)
	stop()
	<-done
	for i := range 250 {
		if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", 1000+i, "}"), "0", "-1"); !slices.Equal(got, []string{fmt.Sprint(p.ID)}) {
			t.Fatalf("follower %d holds %v; want the post exactly once", 1000+i, got)
		}
	}
	if n := f.Do(t, "HLEN", schema.QueueOf(author.ID).Progress); n != "0" {
		t.Fatal("progress of a finished job was not cleaned up")
	}
}

// TestDeliveryUnfollowMidJob: followers who unfollow while a large
// delivery is under way must not make it skip anyone else.
func TestDeliveryUnfollowMidJob(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author := f.Register(t, "author")
	for i := range 25 {
		f.Do(t, "ZADD", fmt.Sprint("followers:{", author.ID, "}"), strconv.Itoa(i), strconv.Itoa(100+i))
	}
	p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "to all who followed"))(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		delivery.New(f.St, delivery.Options{Consumer: "w", Batch: 10, Block: 10 * time.Millisecond,
			Progress: func(delivery.Progress) {
				once.Do(func() { // after the first batch, two early followers leave
					f.Do(t, "ZREM", fmt.Sprint("followers:{", author.ID, "}"), "100", "101")
				})
			}}).Run(ctx)
	}()
	f.Drain(t)
	cancel()
	<-done
	for i := 2; i < 25; i++ {
		if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", 100+i, "}"), "0", "-1"); !slices.Equal(got, []string{fmt.Sprint(p.ID)}) {
			t.Fatalf("follower %d got %v: skipped because others unfollowed mid-delivery", 100+i, got)
		}
	}
	if keys := f.Strs(t, "KEYS", "followers:{*}:job:*"); len(keys) != 0 {
		t.Fatalf("follower snapshots left behind: %v", keys)
	}
}
