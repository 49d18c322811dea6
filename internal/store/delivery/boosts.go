package delivery

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// readBoost reads the boost of job j into j.boosted (the author of the
// post it boosts, which its followers' pushes ask for); ok is false if
// the boost is gone.
func (w *Worker) readBoost(ctx context.Context, j *job) (ok bool, err error) {
	vals, err := w.st.C.Do(ctx, w.st.C.B().Hmget().Key(schema.Post(j.post)).
		Field(schema.FieldUserID, schema.FieldReblogUser).Build()).ToArray()
	if err != nil {
		return false, w.st.Wrap("delivery: read boost", err)
	}
	str := index.AsStrings(vals)
	users := index.SplitUsers(str[1])
	if str[0] == "" || len(users) != 1 {
		return false, nil // gone (or damaged: nothing to deliver)
	}
	j.boosted = kernel.Boosted{ID: j.post, Of: j.of, Author: users[0].ID}
	return true, nil
}

// countBoost begins a boost's job: it counts the boost in its post's
// counts and who boosted it, marks the booster's entry in the directory
// for a refresh, and notifies the post's author the first
// time its booster boosts it, adding its weight to the trending posts then (not of their own post; the author's
// blocks and mutes hide the notification when read). It reports whether
// the boost is to be pushed to the booster's followers: not if it is
// gone (its count is taken back if it went meanwhile).
func (w *Worker) countBoost(ctx context.Context, j *job) (bool, error) {
	if ok, err := w.readBoost(ctx, j); err != nil || !ok {
		return false, err
	}
	now := time.Now().UnixMilli()
	w.st.Written.Add(schema.Counts(j.of))
	author, note := j.boosted.Author, schema.Note(schema.NoteReblog, j.author, j.of)
	res := w.st.Pipeline(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.BoostSyncCmd(w.st.C, j.of, j.author, now),
			w.st.C.B().Zscore().Key(schema.Notifications(author)).Member(note).Build(),
			w.st.C.B().Sadd().Key(schema.ExploreStale).Member(kernel.ID(j.author)).Build()} // its count of posts this week
	})
	synced, err := res[0].AsIntSlice()
	if err == nil && len(synced) != 2 {
		err = kernel.ErrScriptReply
	}
	if err != nil {
		return false, w.st.Wrap("delivery: count boost", err)
	}
	noted := res[1].Error() == nil
	if synced[0] == 1 && !noted && author != j.author { // boosted now, the first time by this booster
		err := redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
			return append(index.NotifyCmds(w.st.C, author, note, now), index.StatusTrendCmd(w.st.C, j.of, now/1000, 1))
		}))
		if err != nil {
			return false, w.st.Wrap("delivery: notify boost", err)
		}
		w.st.Push(ctx, kernel.Notified{User: author, Note: note, At: now})
	}
	b := w.st.C.B()
	both := int64(0)
	for _, r := range w.st.C.DoMulti(ctx, b.Exists().Key(schema.Post(j.post)).Build(), b.Exists().Key(schema.Post(j.of)).Build()) {
		n, err := r.AsInt64()
		if err != nil {
			return false, w.st.Wrap("delivery: boost exists", err)
		}
		both += n
	}
	if both == 2 {
		return true, nil
	}
	// The boost or its post was deleted meanwhile: their jobs may have
	// passed it already.
	return false, w.uncountBoost(ctx, *j)
}

// uncountBoost begins an unboost job: the boost is deleted (if its
// deletion did not get that far), taken off its booster's own posts and
// home timeline, its mark among what the booster boosted dropped, and
// its count taken back unless the booster has boosted the post again
// since.
func (w *Worker) uncountBoost(ctx context.Context, j job) error {
	b := w.st.C.B()
	w.st.Written.Add(schema.Post(j.post), schema.Home(j.author), schema.UserPosts(j.author))
	res := w.st.Pipeline(ctx, func() rueidis.Commands {
		return append(rueidis.Commands{
			kernel.DropBoostCmd(w.st.C, j.author, j.of, j.post),
			b.Hget().Key(schema.Boosts(j.author)).Field(kernel.ID(j.of)).Build(),
			b.Del().Key(schema.Post(j.post)).Build(),
			b.Zrem().Key(schema.UserPosts(j.author)).Member(kernel.ID(j.post)).Build(),
			b.Sadd().Key(schema.ExploreStale).Member(kernel.ID(j.author)).Build(), // its count of posts this week
		}, kernel.UnboostHomeCmds(w.st.C, j.author, j.post)...)
	})
	if err := redisconn.FirstErr(res); err != nil && !rueidis.IsRedisNil(err) {
		return w.st.Wrap("delivery: unboost", err)
	}
	if _, err := res[1].ToString(); err == nil {
		return nil // boosted again: the new boost counts
	}
	w.st.Written.Add(schema.Counts(j.of))
	err := w.st.Pipeline(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.BoostSyncCmd(w.st.C, j.of, j.author, 0)}
	})[0].Error()
	return w.st.Wrap("delivery: uncount boost", err)
}

// pushBoost pushes the boost of job j onto the home timelines of
// followers who are active and have not its post yet (see
// kernel.PushBoost), in one pipeline, and returns those it reached.
func (w *Worker) pushBoost(ctx context.Context, j job, followers []int64) ([]int64, error) {
	horizon := w.horizon()
	homes := make([]string, len(followers))
	for i, f := range followers {
		homes[i] = schema.Home(f)
	}
	res := w.st.Replicated(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, len(followers))
		for i, f := range followers {
			cmds[i] = w.st.PushBoostCmd(f, horizon, j.boosted)
		}
		return cmds
	}, homes...)
	if err := redisconn.FirstErr(res); err != nil {
		return nil, w.st.Wrap("delivery: boost", err)
	}
	reached := make([]bool, len(followers))
	for i, r := range res[:len(followers)] {
		n, err := r.AsInt64()
		reached[i] = err == nil && n > 0
	}
	return reachedBy(followers, reached), nil
}

// dropBoosts carries out a JobUnboosts job: post j.post is deleted, and
// so is every boost of it, at once (readers skip ids whose post is
// gone), each with an unboost job that takes it off the timelines; the
// post's record of who boosted it and its count go, and so do its
// author's notifications of the boosts.
func (w *Worker) dropBoosts(ctx context.Context, j job) error {
	b := w.st.C.B()
	boosters, err := w.st.C.Do(ctx, b.Zrange().Key(schema.RebloggedBy(j.post)).Min("0").Max("-1").Build()).AsIntSlice()
	if err != nil || len(boosters) == 0 {
		return w.st.Wrap("delivery: boosters", err)
	}
	cmds := make(rueidis.Commands, len(boosters))
	for i, u := range boosters {
		cmds[i] = b.Hget().Key(schema.Boosts(u)).Field(kernel.ID(j.post)).Build()
	}
	boosts := map[int64]int64{} // booster -> boost
	for i, r := range w.st.C.DoMulti(ctx, cmds...) {
		if bid, err := r.AsInt64(); err == nil {
			boosts[boosters[i]] = bid
		} else if !rueidis.IsRedisNil(err) {
			return w.st.Wrap("delivery: boosts", err)
		}
	}
	if err := w.st.Enqueue(ctx, j.author, func(q schema.Queue) rueidis.Commands {
		jobs := make(rueidis.Commands, 0, len(boosts))
		for u, bid := range boosts {
			jobs = append(jobs, schema.BoostJob(b, q, schema.JobUnboost, bid, u, j.post))
		}
		return jobs
	}); err != nil {
		return err
	}
	err = redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
		cmds := rueidis.Commands{b.Del().Key(schema.RebloggedBy(j.post)).Build(),
			b.Hdel().Key(schema.Counts(j.post)).Field(schema.FieldReblogs).Build()}
		for _, u := range boosters {
			cmds = append(cmds, b.Zrem().Key(schema.Notifications(j.author)).Member(schema.Note(schema.NoteReblog, u, j.post)).Build())
		}
		for _, bid := range boosts {
			cmds = append(cmds, b.Del().Key(schema.Post(bid)).Build())
		}
		return cmds
	}))
	return w.st.Wrap("delivery: drop boosts", err)
}
