package store_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// TestTake: a rate passes its count at once, then refuses, saying when
// to retry, and passes again after that; subjects are apart; an
// action refused costs nothing; off passes everything without a round
// trip.
func TestTake(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		rate := retwis.Rate{Count: 3, Per: 600 * time.Millisecond}
		for i := range 3 {
			q, err := f.st.Take(f.ctx, "test:a", rate)
			if err != nil || q.Limit != 3 || q.Remaining != 2-i {
				t.Fatalf("action %d: %+v, %v; want %d remaining", i, q, err, 2-i)
			}
		}
		var refusals []time.Duration
		for range 2 { // a refusal does not push the next pass further
			q, err := f.st.Take(f.ctx, "test:a", rate)
			limited, ok := errors.AsType[*retwis.Limited](err)
			if retwis.ErrorKind(err) != retwis.TooMany || !ok || q.Remaining != 0 || q.RetryAfter <= 0 || q.RetryAfter > 200*time.Millisecond || limited.Quota != q {
				t.Fatalf("beyond the rate: %+v, %v", q, err)
			}
			refusals = append(refusals, q.RetryAfter)
		}
		if refusals[1] > refusals[0] {
			t.Errorf("a refused action moved the next pass: %v", refusals)
		}
		if _, err := f.st.Take(f.ctx, "test:b", rate); err != nil {
			t.Errorf("another subject: %v", err)
		}
		if ttl, _ := strconv.Atoi(f.do(t, "PTTL", "ratelimit:{test:b}")); ttl <= 0 || ttl > 200 {
			t.Errorf("the state of a limit lives %d ms; want one interval, 200 ms", ttl)
		}
		time.Sleep(refusals[1] + 20*time.Millisecond)
		if _, err := f.st.Take(f.ctx, "test:a", rate); err != nil {
			t.Errorf("after the wait: %v", err)
		}
		before := f.rc.Calls.Load()
		if _, err := f.st.Take(f.ctx, "test:a", retwis.Rate{}); err != nil || f.rc.Calls.Load() != before {
			t.Errorf("off: %v, %d round trips", err, f.rc.Calls.Load()-before)
		}
	})
}
