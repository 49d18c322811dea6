package store_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestTake: a rate passes its count at once, then refuses, saying when
// to retry, and passes again after that; subjects are apart; an
// action refused costs nothing; off passes everything without a round
// trip. The rate's interval is a second: the actions "at once" are
// within it however loaded the machine.
func TestTake(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		const interval = time.Second
		rate := retwis.Rate{Count: 3, Per: 3 * interval}
		for i := range 3 {
			q, err := f.St.Take(f.Ctx, "test:a", rate)
			if err != nil || q.Limit != 3 || q.Remaining != 2-i {
				t.Fatalf("action %d: %+v, %v; want %d remaining", i, q, err, 2-i)
			}
		}
		var refusals []time.Duration
		for range 2 { // a refusal does not push the next pass further
			q, err := f.St.Take(f.Ctx, "test:a", rate)
			limited, ok := errors.AsType[*retwis.Limited](err)
			if retwis.ErrorKind(err) != retwis.TooMany || !ok || q.Remaining != 0 || q.RetryAfter <= 0 || q.RetryAfter > interval || limited.Quota != q {
				t.Fatalf("beyond the rate: %+v, %v", q, err)
			}
			refusals = append(refusals, q.RetryAfter)
		}
		if refusals[1] > refusals[0] {
			t.Errorf("a refused action moved the next pass: %v", refusals)
		}
		if _, err := f.St.Take(f.Ctx, "test:b", rate); err != nil {
			t.Errorf("another subject: %v", err)
		}
		if ttl, _ := strconv.Atoi(f.Do(t, "PTTL", "ratelimit:{test:b}")); ttl <= 0 || ttl > int(interval.Milliseconds()) {
			t.Errorf("the state of a limit lives %d ms; want one interval, %v", ttl, interval)
		}
		time.Sleep(refusals[1] + 20*time.Millisecond) // the rate's interval, on the wall clock, must pass
		if _, err := f.St.Take(f.Ctx, "test:a", rate); err != nil {
			t.Errorf("after the wait: %v", err)
		}
		before := f.RC.Calls.Load()
		if _, err := f.St.Take(f.Ctx, "test:a", retwis.Rate{}); err != nil || f.RC.Calls.Load() != before {
			t.Errorf("off: %v, %d round trips", err, f.RC.Calls.Load()-before)
		}
	})
}

// TestPostAndFollowLimits: posts and follows beyond their rate are
// refused with TooMany and write nothing.
func TestPostAndFollowLimits(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{Limits: store.Limits{
		Posts: retwis.Rate{Count: 2, Per: time.Hour}, Follows: retwis.Rate{Count: 1, Per: time.Hour}}}, false)
	alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
	for i := range 2 {
		if _, err := f.St.CreatePost(f.Ctx, alice.ID, fmt.Sprint("post ", i)); err != nil {
			t.Fatal(err)
		}
	}
	before := f.Strs(t, "ZRANGE", fmt.Sprint("user_posts:{", alice.ID, "}"), "0", "-1")
	if _, err := f.St.CreatePost(f.Ctx, alice.ID, "one too many"); retwis.ErrorKind(err) != retwis.TooMany {
		t.Fatalf("a third post: %v", err)
	}
	if after := f.Strs(t, "ZRANGE", fmt.Sprint("user_posts:{", alice.ID, "}"), "0", "-1"); len(after) != len(before) {
		t.Errorf("a refused post was written: %v", after)
	}
	if _, err := f.St.CreatePost(f.Ctx, bob.ID, "bob's own quota"); err != nil {
		t.Errorf("another user's post: %v", err)
	}
	if err := f.St.Follow(f.Ctx, alice.ID, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.St.Follow(f.Ctx, alice.ID, carol.ID); retwis.ErrorKind(err) != retwis.TooMany {
		t.Fatalf("a second follow: %v", err)
	}
	if got := f.Strs(t, "ZRANGE", fmt.Sprint("following:{", alice.ID, "}"), "0", "-1"); len(got) != 1 {
		t.Errorf("following after a refused follow: %v", got)
	}
	if err := f.St.Unfollow(f.Ctx, alice.ID, bob.ID); err != nil {
		t.Errorf("unfollowing is not limited: %v", err)
	}
}

// BenchmarkTake times what a rate limit costs an action, from 16
// goroutines at once (each its own subject, as many users would be),
// beside a PING of the node (Store.Health, the cheapest round trip) as
// the baseline:
//
//	go test ./internal/store -run '^$' -bench Take -count 3
func BenchmarkTake(b *testing.B) {
	st := storetest.Open(b, redistest.Start(b).URL, store.Options{})
	rate := retwis.Rate{Count: 1_000_000, Per: time.Hour}
	for _, bm := range []struct {
		name string
		op   func(subject string) error
	}{
		{"ping", func(string) error { return st.Health(b.Context()) }},
		{"take", func(subject string) error {
			_, err := st.Take(b.Context(), accounts.Subject(subject), rate)
			return err
		}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(8) // 16 goroutines on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				subject := fmt.Sprint("bench:", n.Add(1))
				for pb.Next() {
					if err := bm.op(subject); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
