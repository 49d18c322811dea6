package delivery_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestVanishedBoostJobsRedone loses a boost's job, then its take-back's,
// as a failover that discards a queue shard's last writes can:
// maintenance finds each among the recent boosts (a boost standing, not
// marked delivered; a boost gone whose booster still counts among who
// boosted the post), with no job queued, and queues it again, once. The
// booster's follower gets the boost once, then loses it; the post's
// count follows. A boost whose job is still queued is left to it; a
// take-back is found by its own record, the boost's being too old.
func TestVanishedBoostJobsRedone(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	author, booster, other, fan := f.Register(t, "author"), f.Register(t, "booster"), f.Register(t, "other"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, booster.ID))
	post := must.Value(f.St.CreatePost(f.Ctx, author.ID, "worth a boost"))(t)
	f.deliverAll(t)

	boost := must.Value(f.St.Boost(f.Ctx, booster.ID, post.ID))(t)
	f.loseJob(t, schema.JobBoost, boost.ID)
	must.Value(f.St.Boost(f.Ctx, other.ID, post.ID))(t) // its job waits
	f.wantRedone(t, 1, "the lost boost's job")
	f.deliverAll(t)
	if home := f.Strs(t, "LRANGE", schema.Home(fan.ID), "0", "-1"); !slices.Equal(home, []string{itoa(boost.ID)}) {
		t.Errorf("the fan's home timeline = %v; want the boost %d once", home, boost.ID)
	}
	if n := f.Do(t, "HGET", schema.Counts(post.ID), schema.FieldReblogs); n != "2" {
		t.Errorf("the post counts %s boosts; want 2", n)
	}
	f.wantRedone(t, 0, "the boosts delivered")

	f.ageBoostRecords(t, 2*time.Hour) // the boost's record is past the search's horizon: the take-back's own is found
	must.Value(f.St.Unboost(f.Ctx, booster.ID, post.ID))(t)
	f.loseJob(t, schema.JobUnboost, boost.ID)
	f.wantRedone(t, 1, "the lost take-back's job")
	f.deliverAll(t)
	if home := f.Strs(t, "LRANGE", schema.Home(fan.ID), "0", "-1"); len(home) > 0 {
		t.Errorf("the fan's home timeline = %v; want the boost taken back", home)
	}
	if got := f.Strs(t, "ZRANGE", schema.HomeBoosts(fan.ID), "0", "-1"); len(got) > 0 {
		t.Errorf("the fan's home still records boosts of %v", got)
	}
	if by := f.Strs(t, "ZRANGE", schema.RebloggedBy(post.ID), "0", "-1"); !slices.Equal(by, []string{itoa(other.ID)}) {
		t.Errorf("boosted by %v; want only the other booster %d", by, other.ID)
	}
	f.wantRedone(t, 0, "the take-back done")
}

// wantRedone ages the records of the recent boosts past the grace of
// the search for vanished jobs, runs a round of maintenance and checks
// that it gave want boosts a new job.
func (f *fixture) wantRedone(t *testing.T, want int, what string) {
	t.Helper()
	f.ageBoostRecords(t, 2*time.Minute)
	d := delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour})
	rep, err := upkeep.Round(f.Ctx, f.St, d, deletion.New(f.St))
	if err != nil || rep.RedeliveredBoosts != want || rep.Redelivered != 0 {
		t.Fatalf("after %s, maintenance redid %d boosts' jobs and %d posts' (%v); want %d and none", what, rep.RedeliveredBoosts, rep.Redelivered, err, want)
	}
}

// loseJob deletes the job of the kind about post pid from the queue, as
// a failover may lose it.
func (f *fixture) loseJob(t *testing.T, kind string, pid int64) {
	t.Helper()
	for n := range schema.QueueShards {
		stream := schema.QueueN(n).Stream
		entries := must.Value(f.Raw.Do(f.Ctx, f.Raw.B().Xrange().Key(stream).Start("-").End("+").Build()).AsXRange())(t)
		for _, e := range entries {
			if e.FieldValues[schema.JobKind] == kind && e.FieldValues[schema.JobPost] == itoa(pid) {
				f.Do(t, "XDEL", stream, e.ID)
				return
			}
		}
	}
	t.Fatalf("no %s job of %d queued", kind, pid)
}

// ageBoostRecords makes the records of schema.RecentBoosts by as much
// older: it writes them again, with their stream ids moved back.
func (f *fixture) ageBoostRecords(t *testing.T, by time.Duration) {
	t.Helper()
	entries := must.Value(f.Raw.Do(f.Ctx, f.Raw.B().Xrange().Key(schema.RecentBoosts).Start("-").End("+").Build()).AsXRange())(t)
	f.Do(t, "DEL", schema.RecentBoosts)
	for _, e := range entries {
		ms, seq, _ := strings.Cut(e.ID, "-")
		at := must.Value(strconv.ParseInt(ms, 10, 64))(t) - by.Milliseconds()
		args := []string{"XADD", schema.RecentBoosts, fmt.Sprintf("%d-%s", at, seq)}
		for _, k := range []string{schema.JobKind, schema.JobPost, schema.JobAuthor, schema.JobOf} {
			args = append(args, k, e.FieldValues[k])
		}
		f.Do(t, args...)
	}
}

// deliverAll runs a delivery worker until every queued job is done.
func (f *fixture) deliverAll(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(f.Ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		delivery.New(f.St, delivery.Options{Consumer: "worker", Block: 20 * time.Millisecond}).Run(ctx)
	})
	f.Drain(t)
	cancel()
	wg.Wait()
}
