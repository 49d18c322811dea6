package delivery

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/store/kernel"
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

// Redelivered counts the jobs RedeliverVanished recorded anew.
type Redelivered struct {
	Posts  int // deliver jobs of posts
	Boosts int // boost and unboost jobs of boosts and their take-backs
}

// RedeliverVanished finds posts and boosts whose delivery job vanished
// (lost with a master whose last writes a failover discarded, or
// deleted by hand) and records a new job for each; it returns how many.
// While the queue holds more than vanishedQueueMax jobs, it does
// nothing.
func (w *Worker) RedeliverVanished(ctx context.Context) (Redelivered, error) {
	var r Redelivered
	queued, ok, err := w.queuedPosts(ctx)
	if err != nil || !ok {
		return r, err
	}
	if r.Posts, err = w.redeliverPosts(ctx, queued); err != nil {
		return r, err
	}
	r.Boosts, err = w.redeliverBoosts(ctx, queued)
	return r, err
}

// redeliverPosts finds the posts whose deliver job vanished and records
// a new job for each; it returns how many. A deliver job marks its post
// delivered before it is acknowledged, so a post of the global
// timeline posted between vanishedGrace and vanishedHorizon ago, not
// marked, with no job on any shard of the queue (queued), has lost its
// job. Delivering again is harmless: timelines ignore ids they hold.
func (w *Worker) redeliverPosts(ctx context.Context, queued map[int64]bool) (int, error) {
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

// redeliverBoosts finds the boosts and take-backs of boosts whose job
// vanished among the newest vanishedRecent recorded (schema.BoostRecord)
// between vanishedGrace and vanishedHorizon ago, and records a new job
// for each (see lostBoostJob); it returns how many. queued holds the
// posts with a job on the queue, whose records are left to it. Doing a
// boost's or a take-back's job again is harmless: a boost is pushed once
// per home timeline, counted once per booster.
func (w *Worker) redeliverBoosts(ctx context.Context, queued map[int64]bool) (int, error) {
	recs, err := w.recentBoosts(ctx, queued)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	b := w.st.C.B()
	cmds := make(rueidis.Commands, 0, 3*len(recs))
	for _, r := range recs {
		cmds = append(cmds, b.Hmget().Key(schema.Post(r.post)).Field(schema.FieldUserID, schema.FieldDelivered).Build(),
			b.Hget().Key(schema.Boosts(r.author)).Field(kernel.ID(r.of)).Build(),
			b.Zscore().Key(schema.RebloggedBy(r.of)).Member(kernel.ID(r.author)).Build())
	}
	res := w.st.C.DoMulti(ctx, cmds...)
	found := 0
	for i, r := range recs {
		kind, err := lostBoostJob(r.post, res[3*i:3*i+3])
		if err != nil {
			return found, w.st.Wrap("maintenance: read boosts", err)
		}
		if kind == "" {
			continue
		}
		if err := w.st.Enqueue(ctx, r.author, func(q schema.Queue) rueidis.Commands {
			return rueidis.Commands{schema.BoostJob(b, q, kind, r.post, r.author, r.of)}
		}); err != nil {
			return found, err
		}
		w.st.Log.Warn("a boost's job had vanished; it is done again", "job", kind, "boost", r.post, "booster", r.author, "of", r.of)
		found++
	}
	return found, nil
}

// recentBoosts returns, as jobs, the newest vanishedRecent records of
// schema.RecentBoosts made between vanishedGrace and vanishedHorizon
// ago, one a boost (its newest), but for the boosts with a job queued.
func (w *Worker) recentBoosts(ctx context.Context, queued map[int64]bool) ([]job, error) {
	now := time.Now()
	ms := func(d time.Duration) string { return strconv.FormatInt(now.Add(-d).UnixMilli(), 10) }
	entries, err := w.st.C.Do(ctx, w.st.C.B().Xrevrange().Key(schema.RecentBoosts).End(ms(vanishedGrace)).Start(ms(vanishedHorizon)).
		Count(vanishedRecent).Build()).AsXRange()
	if err != nil {
		return nil, w.st.Wrap("maintenance: recent boosts", err)
	}
	var recs []job
	seen := map[int64]bool{}
	for _, e := range entries {
		j := parseJob(jobqueue.Job{Fields: e.FieldValues})
		if !j.valid() || (j.kind != schema.JobBoost && j.kind != schema.JobUnboost) || seen[j.post] || queued[j.post] {
			continue
		}
		seen[j.post] = true
		recs = append(recs, j)
	}
	return recs, nil
}

// lostBoostJob returns the job that boost bid lost, from what
// redeliverBoosts read of it: the fields user_id and delivered of its
// hash, its booster's mark of the post it boosts and the booster's
// score among who boosted that post. A boost that stands, is its
// booster's mark and was never delivered lost its JobBoost (its job
// marks it delivered before it is acknowledged). A boost that is gone
// while its booster still counts among who boosted the post, and has
// not boosted it again since (the mark is gone, or still this boost's),
// lost its JobUnboost, which takes the booster out of them. "" for
// neither: done, never made, or boosted again (the take-back's job, if
// it vanished, is not found then: the followers keep the boost taken
// back, which readers skip, and a later boost of the post does not
// reach them).
func lostBoostJob(bid int64, res []rueidis.RedisResult) (string, error) {
	vals, err := res[0].ToArray()
	if err != nil {
		return "", err
	}
	mark, markErr := res[1].ToString()
	_, countErr := res[2].AsFloat64()
	for _, err := range []error{markErr, countErr} {
		if err != nil && !rueidis.IsRedisNil(err) {
			return "", err
		}
	}
	exists, delivered, counted := !vals[0].IsNil(), !vals[1].IsNil(), countErr == nil
	switch own := mark == kernel.ID(bid); {
	case exists && own && !delivered:
		return schema.JobBoost, nil
	case !exists && (own || mark == "") && counted:
		return schema.JobUnboost, nil
	}
	return "", nil
}
