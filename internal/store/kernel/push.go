package kernel

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// Notified is a notification made: for whom, its member of
// schema.Notifications, and when (unix ms, its score there).
type Notified struct {
	User int64
	Note string
	At   int64
}

// pushCacheTTL bounds how long this server trusts its copy of whether a
// user has a push subscription; Redis invalidates it at once when the
// subscriptions change.
const pushCacheTTL = 10 * time.Minute

// Push records a push job (schema.PushJob) for each of notes whose user
// has a Web Push subscription. Whether one has is read through the
// client-side cache, so that once warm a notification for a user
// without a subscription costs no round trip. Called after the
// notifications are written; a failure is logged and the pushes lost,
// as a live stream's events are: the notifications are the truth.
func (db *DB) Push(ctx context.Context, notes ...Notified) {
	if len(notes) == 0 {
		return
	}
	reads := make([]rueidis.CacheableTTL, len(notes))
	for i, n := range notes {
		reads[i] = rueidis.CT(db.C.B().Hlen().Key(schema.PushSubscriptions(n.User)).Cache(), pushCacheTTL)
	}
	var jobs rueidis.Commands
	for i, r := range db.CachedMulti(ctx, reads...) {
		if n, err := r.AsInt64(); err != nil {
			db.Log.Warn("push: reading whether a user has a subscription", "user", notes[i].User, "err", err)
		} else if n > 0 {
			jobs = append(jobs, schema.PushJob(db.C.B(), notes[i].User, notes[i].Note, notes[i].At))
		}
	}
	if len(jobs) == 0 {
		return
	}
	if err := redisconn.FirstErr(db.C.DoMulti(ctx, jobs...)); err != nil {
		db.Log.Warn("push: recording push jobs", "jobs", len(jobs), "err", err)
	}
}
