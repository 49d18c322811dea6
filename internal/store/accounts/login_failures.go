package accounts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// The growing delay of an account whose logins keep failing: after
// loginFreeFailures failures within loginFailureWindow, each further
// attempt waits, after the last failure, twice as long as the one
// before (1 s, 2 s, 4 s…), up to loginMaxDelay. It never locks the owner
// out: the wait is bounded, and the failures are forgotten after the
// window.
const (
	loginFreeFailures  = 3
	loginFailureWindow = 15 * time.Minute
	loginMaxDelay      = 5 * time.Minute
	loginFailuresTTL   = 24 * time.Hour
	loginNoticeTTL     = 7 * 24 * time.Hour
)

// loginDelay is how long after the last of failures (unix ms, newest
// first) the next attempt must wait, at now.
func loginDelay(failures []int64, now time.Time) time.Duration {
	since := now.Add(-loginFailureWindow).UnixMilli()
	n := 0
	for _, f := range failures {
		if f >= since {
			n++
		}
	}
	if n < loginFreeFailures {
		return 0
	}
	return min(time.Second<<min(n-loginFreeFailures, 20), loginMaxDelay)
}

// failures reads the failed logins of uid since its last login.
func (s *Store) failures(ctx context.Context, key string) ([]int64, error) {
	vals, err := s.C.Do(ctx, s.C.B().Lrange().Key(key).Start(0).Stop(schema.LoginFailuresKept-1).Build()).AsStrSlice()
	if err != nil {
		return nil, s.Wrap("failed logins", err)
	}
	out := make([]int64, 0, len(vals))
	for _, v := range vals {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, ms)
		}
	}
	return out, nil
}

// checkLoginDelay refuses, with an error of kind TooMany, an attempt to
// log in to uid that comes before the delay its failures call for,
// before any password is hashed.
func (s *Store) checkLoginDelay(ctx context.Context, uid int64) error {
	failures, err := s.failures(ctx, schema.LoginFailures(uid))
	if err != nil || len(failures) == 0 {
		return err
	}
	now := time.Now()
	if wait := time.UnixMilli(failures[0]).Add(loginDelay(failures, now)).Sub(now); wait > 0 {
		return retwis.TooManyError(retwis.Quota{RetryAfter: wait, Reset: now.Add(wait)})
	}
	return nil
}

// recordFailure notes a failed login to uid.
func (s *Store) recordFailure(ctx context.Context, uid int64) {
	key, b := schema.LoginFailures(uid), s.C.B()
	err := s.C.DoMulti(ctx,
		b.Lpush().Key(key).Element(strconv.FormatInt(time.Now().UnixMilli(), 10)).Build(),
		b.Ltrim().Key(key).Start(0).Stop(schema.LoginFailuresKept-1).Build(),
		b.Pexpire().Key(key).Milliseconds(loginFailuresTTL.Milliseconds()).Build())[0].Error()
	if err != nil {
		s.Log.Warn("recording a failed login", "user", uid, "err", err)
	}
}

// noteFailures moves the failed logins of uid, which has just logged in,
// to its notice, for the owner to see.
func (s *Store) noteFailures(ctx context.Context, uid int64) {
	b := s.C.B()
	s.Written.Add(schema.LoginNotice(uid))
	res := s.C.DoMulti(ctx,
		b.Rename().Key(schema.LoginFailures(uid)).Newkey(schema.LoginNotice(uid)).Build(),
		b.Pexpire().Key(schema.LoginNotice(uid)).Milliseconds(loginNoticeTTL.Milliseconds()).Build())
	if err := res[0].Error(); err != nil {
		if _, reply := rueidis.IsRedisErr(err); !reply { // a reply ("no such key") is no failure to note
			s.Log.Warn("noting failed logins", "user", uid, "err", err)
		}
	}
}

// LoginNotice returns the failed logins to uid's account that its owner
// has not been told of (how many, and when the last was), and forgets
// them: the home page shows them once. Read through the client-side
// cache, so that it costs nothing when there are none.
func (s *Store) LoginNotice(ctx context.Context, uid int64) (n int, last time.Time, err error) {
	var b kernel.Batch
	notice := s.StartLoginNotice(uid, &b)
	s.ReadBatch(ctx, &b)
	return notice.Take(ctx)
}

// Notice is the reading of the failed logins the home page tells its
// owner of (see LoginNotice) along with the page's other reads:
// StartLoginNotice adds it to a batch, and once the batch is read, Take
// returns them.
type Notice struct {
	s    *Store
	uid  int64
	slot kernel.Slot
}

// StartLoginNotice adds the read of uid's login notice to b.
func (s *Store) StartLoginNotice(uid int64, b *kernel.Batch) Notice {
	cmd := s.C.B().Lrange().Key(schema.LoginNotice(uid)).Start(0).Stop(schema.LoginFailuresKept - 1).Cache()
	return Notice{s: s, uid: uid, slot: b.Add(rueidis.CT(cmd, s.Opts.CacheTTL))}
}

// Take returns the failed logins read, and forgets them (a write, when
// there are some).
func (n Notice) Take(ctx context.Context) (int, time.Time, error) {
	s := n.s
	vals, err := n.slot.Replies()[0].AsStrSlice()
	if err != nil || len(vals) == 0 {
		return 0, time.Time{}, s.Wrap("failed logins", err)
	}
	ms, _ := strconv.ParseInt(vals[0], 10, 64)
	key := schema.LoginNotice(n.uid)
	s.Written.Add(key)
	if err := s.C.Do(ctx, s.C.B().Del().Key(key).Build()).Error(); err != nil {
		return 0, time.Time{}, s.Wrap("failed logins", err)
	}
	return len(vals), time.UnixMilli(ms), nil
}
