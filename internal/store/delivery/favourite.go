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

// favourite carries out a favourite job: it brings the post's side of
// favourites in line with the mark of the user in j.author (the truth),
// whatever the job's order among that user's jobs of the post and
// however often it runs: it reads the mark and the post's author, then,
// in the post's slot, adds the user to who favourited it or takes them
// out and counts them (index.FavouriteSyncCmd: the favourite did so
// already, unless its pipeline crossed another's), and while the mark
// stands, notifies the author (once, however often it runs:
// index.FavouriteNoteCmd) and, the first time, their live stream, and
// adds its weight to the trending posts (index.StatusTrendCmd). A post
// gone loses its counts instead.
func (w *Worker) favourite(ctx context.Context, j job) error {
	err := w.syncFavourite(ctx, j.post, j.author)
	w.st.Metrics.Job(j.kind, j.post, err)
	return w.st.Wrap("delivery: favourite", err)
}

// syncFavourite brings post pid's favourites in line with uid's mark.
func (w *Worker) syncFavourite(ctx context.Context, pid, uid int64) error {
	c, b := w.st.C, w.st.C.B()
	res := c.DoMulti(ctx,
		b.Zscore().Key(schema.Favourites(uid)).Member(kernel.ID(pid)).Build(),
		b.Hget().Key(schema.Post(pid)).Field(schema.FieldUserID).Build())
	at, err := res[0].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return err
	}
	author, err := res[1].AsInt64()
	if rueidis.IsRedisNil(err) { // the post is gone: so are its counts
		return redisconn.FirstErr(c.DoMulti(ctx, index.CountsDelCmds(c, pid)...))
	}
	if err != nil {
		return err
	}
	if err := w.script(ctx, index.FavouriteSyncCmd(c, pid, uid, at)).Error(); err != nil || at == 0 || author == uid {
		return err
	}
	now := time.Now().UnixMilli()
	if n, err := w.script(ctx, index.FavouriteNoteCmd(c, author, uid, pid, now)).AsInt64(); err != nil || n == 0 {
		return err
	}
	note := kernel.Notified{User: author, Note: schema.Note(schema.NoteFavourite, uid, pid), At: now}
	w.st.Push(ctx, note)
	return redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
		return rueidis.Commands{index.NoteEventCmd(c, author, note.Note, now), index.StatusTrendCmd(c, pid, now/1000, 1)}
	}))
}

// script sends one script call, through Pipeline, which loads the
// scripts again on a node that forgot them.
func (w *Worker) script(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	return w.st.Pipeline(ctx, func() rueidis.Commands { return rueidis.Commands{cmd} })[0]
}
