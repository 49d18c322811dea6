package accounts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// ActivityWeek is a week of the instance's activity, as Mastodon's
// instance/activity gives it.
type ActivityWeek struct {
	Week          time.Time // its Monday, 00:00 UTC
	Statuses      int64     // posts published
	Logins        int64     // users who logged in, signed up or published
	Registrations int64     // sign-ups
}

// Usage is what the instance entity and nodeinfo say of its use.
type Usage struct {
	ActiveMonth    int64 // users active in the last 4 weeks (see ActivityWeek.Logins)
	ActiveHalfyear int64 // in the last 26 weeks
	Statuses       int64 // posts published since counting began
}

// ReplicatedCounting is Replicated (build's writes, waited for on the
// replicas of keys' slots) with the count of one act of uid's in the
// instance's activity (a login, or with field a post or a sign-up: see
// index.ActivityCmds) in the same pipeline, so that counting costs no
// round trip; it returns the results of build's commands. Only a
// statistic: a count that fails is logged, never the act's failure.
// But a failed command makes Replicated skip its check of the
// replicas, so build's writes, which must be safe to repeat, are then
// sent again alone and waited for (a round trip more, only then).
func (s *Store) ReplicatedCounting(ctx context.Context, uid int64, field string, build func() rueidis.Commands, keys ...string) []rueidis.RedisResult {
	n, now := 0, time.Now()
	res := s.Replicated(ctx, func() rueidis.Commands {
		cmds := build()
		n = len(cmds)
		return append(cmds, index.ActivityCmds(s.C, uid, now, field)...)
	}, keys...)
	if err := redisconn.FirstErr(res[n:]); err != nil {
		s.Log.Warn("the instance's activity was not counted", "user", uid, "field", field, "err", err)
		if redisconn.FirstErr(res[:n]) == nil && s.Opts.WaitReplicas > 0 {
			return s.Replicated(ctx, build, keys...)
		}
	}
	return res[:n]
}

// Activity returns the instance's activity in the last n weeks, this
// one first, in one round trip (all of it is in one slot).
func (s *Store) Activity(ctx context.Context, n int) ([]ActivityWeek, error) {
	b, week := s.C.B(), time.Unix(schema.Week(time.Now()), 0).UTC()
	cmds := make(rueidis.Commands, 0, 2*n)
	for i := range n {
		w := week.AddDate(0, 0, -7*i).Unix()
		cmds = append(cmds,
			b.Hmget().Key(schema.ActivityWeek(w)).Field(schema.FieldActivityStatuses, schema.FieldActivityRegistrations).Build(),
			b.Pfcount().Key(schema.ActivityUsers(w)).Build())
	}
	res := s.C.DoMulti(ctx, cmds...)
	weeks := make([]ActivityWeek, n)
	for i := range weeks {
		counts, err := res[2*i].ToArray()
		if err != nil {
			return nil, s.Wrap("activity", err)
		}
		logins, err := res[2*i+1].AsInt64()
		if err != nil {
			return nil, s.Wrap("activity", err)
		}
		weeks[i] = ActivityWeek{Week: week.AddDate(0, 0, -7*i), Statuses: count(counts[0]), Logins: logins, Registrations: count(counts[1])}
	}
	return weeks, nil
}

// count reads a count of HMGET's answer: 0 when it is missing.
func count(m rueidis.RedisMessage) int64 {
	v, err := m.ToString()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Usage returns the instance's use, in one round trip.
func (s *Store) Usage(ctx context.Context) (Usage, error) {
	b, week := s.C.B(), time.Unix(schema.Week(time.Now()), 0).UTC()
	weeks := func(n int) []string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = schema.ActivityUsers(week.AddDate(0, 0, -7*i).Unix())
		}
		return keys
	}
	res := s.C.DoMulti(ctx, b.Pfcount().Key(weeks(4)...).Build(), b.Pfcount().Key(weeks(26)...).Build(),
		b.Hget().Key(schema.ActivityTotal).Field(schema.FieldActivityStatuses).Build())
	var u Usage
	var err error
	if u.ActiveMonth, err = res[0].AsInt64(); err == nil {
		u.ActiveHalfyear, err = res[1].AsInt64()
	}
	if err != nil {
		return Usage{}, s.Wrap("usage", err)
	}
	if u.Statuses, err = res[2].AsInt64(); err != nil && !rueidis.IsRedisNil(err) {
		return Usage{}, s.Wrap("usage", err)
	}
	return u, nil
}
