package delivery

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of the search for posts whose delivery job vanished.
const (
	// vanishedRecent is how many of the newest posts of the global
	// timeline are looked at.
	vanishedRecent = 200
	// vanishedGrace is how old a post must be: a younger one may be
	// between its push on the global timeline and its job.
	vanishedGrace = time.Minute
	// vanishedHorizon is how old a post may be: older ones were looked at
	// by earlier rounds (or predate the delivered mark).
	vanishedHorizon = time.Hour
	// vanishedQueueMax is how many queued jobs the search reads at most;
	// with more, it waits for a quieter round.
	vanishedQueueMax = 5000
)

// RedeliverVanished finds posts whose delivery job vanished (lost with a
// master whose last writes a failover discarded, or deleted by hand) and
// records a new job for each; it returns how many. A deliver job marks
// its post delivered before it is acknowledged, so a post of the global
// timeline posted between vanishedGrace and vanishedHorizon ago, not
// marked, with no job on any shard of the queue, has lost its job.
// Delivering again is harmless: timelines ignore ids they hold. While the
// queue holds more than vanishedQueueMax jobs, it does nothing.
func (w *Worker) RedeliverVanished(ctx context.Context) (int, error) {
	queued, ok, err := w.queuedPosts(ctx)
	if err != nil || !ok {
		return 0, err
	}
	pids, err := w.st.C.Do(ctx, w.st.C.B().Lrange().Key(schema.Timeline).Start(0).Stop(vanishedRecent-1).Build()).AsIntSlice()
	if err != nil {
		return 0, w.st.Wrap("maintenance: global timeline", err)
	}
	cmds := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		cmds[i] = w.st.C.B().Hmget().Key(schema.Post(pid)).Field(schema.FieldUserID, schema.FieldTime, schema.FieldDelivered).Build()
	}
	now := time.Now()
	found := 0
	for i, r := range w.st.C.DoMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return found, w.st.Wrap("maintenance: read posts", err)
		}
		author, err1 := vals[0].AsInt64()
		ts, err2 := vals[1].AsInt64()
		if _, err := vals[2].ToString(); err == nil || err1 != nil || err2 != nil || queued[pids[i]] {
			continue // delivered, gone, damaged or queued
		}
		if age := now.Sub(time.Unix(ts, 0)); age < vanishedGrace || age > vanishedHorizon {
			continue
		}
		pid := pids[i]
		if err := w.st.Enqueue(ctx, author, func(q schema.Queue) rueidis.Commands {
			return rueidis.Commands{w.st.JobCmd(q, schema.JobDeliver, pid, author)}
		}); err != nil {
			return found, err
		}
		w.st.Log.Warn("a post's delivery job had vanished; it is delivered again", "post", pid, "author", author)
		found++
	}
	return found, nil
}

// queuedPosts returns the posts that have a job on some shard of the
// delivery queue (waiting or running); ok is false, and nothing read,
// when the queue holds more than vanishedQueueMax jobs.
func (w *Worker) queuedPosts(ctx context.Context) (posts map[int64]bool, ok bool, err error) {
	n, err := w.st.DeliveryBacklog(ctx)
	if err != nil || n > vanishedQueueMax {
		return nil, false, err
	}
	cmds := make(rueidis.Commands, schema.QueueShards)
	for i := range cmds {
		cmds[i] = w.st.C.B().Xrange().Key(schema.QueueN(i).Stream).Start("-").End("+").Build()
	}
	posts = map[int64]bool{}
	for _, r := range w.st.C.DoMulti(ctx, cmds...) {
		entries, err := r.AsXRange()
		if err != nil {
			return nil, false, w.st.Wrap("maintenance: read the queue", err)
		}
		for _, e := range entries {
			pid, _ := strconv.ParseInt(e.FieldValues[schema.JobPost], 10, 64)
			posts[pid] = true
		}
	}
	return posts, true, nil
}
