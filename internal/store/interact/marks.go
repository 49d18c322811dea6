package interact

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// markKind is a kind of mark a user puts on posts: a favourite, a
// bookmark, a pin. The user's sorted set of marked posts (post id →
// unix ms) is the truth; a kind whose post's side follows (favourites:
// who favourited it, its count, the author's notification) records a
// delivery job with the mark, which brings it in line.
type markKind struct {
	key  func(uid int64) string
	mark func(p *retwis.Post) *bool // the post's field of the reader's mark
	job  string                     // the delivery job that follows the post's side ("": none)
	// check refuses a mark of p by uid that is not allowed (nil: all are).
	check func(ctx context.Context, s *Store, uid int64, p retwis.Post) error
}

// setMark puts (on) or takes off uid's mark of kind k on post pid, and
// returns the post as uid then sees it. The post must be one uid sees
// (read with the mark, through the client-side cache); then the mark and
// its delivery job, if any, are written in one pipeline, acknowledged
// once replicated. Putting a mark is rate limited (Limits.Actions, the
// subject schema.ActionLimit); taking one off is not, and
// takes it off even a post uid no longer sees, then answers that it is
// not found. Marking twice changes nothing.
func (s *Store) setMark(ctx context.Context, k markKind, uid, pid int64, on bool) (retwis.Post, error) {
	if on {
		if _, err := s.Take(ctx, accounts.Subject(schema.ActionLimit(uid)), s.Opts.Limits.Actions); err != nil {
			return retwis.Post{}, err
		}
	}
	p, err := s.Post(ctx, uid, pid)
	if err != nil && (on || retwis.ErrorKind(err) != retwis.NotFound) {
		return p, err
	}
	if on && k.check != nil {
		if err := k.check(ctx, s, uid, p); err != nil {
			return p, err
		}
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	if werr := s.writeMark(ctx, k, uid, pid, on); werr != nil {
		return p, werr
	}
	if err != nil {
		return p, err
	}
	if marked := k.mark(&p); *marked != on {
		*marked = on
		if k.job == schema.JobFavourite && on {
			p.Favourites++ // as the job is about to count it
		} else if k.job == schema.JobFavourite {
			p.Favourites = max(p.Favourites-1, 0)
		}
	}
	return p, nil
}

// writeMark writes uid's mark of kind k on post pid (on) or takes it off,
// in one pipeline; for a kind with a delivery job, with the job and the
// post's side brought in line at once (index.FavouriteSyncCmd), so that
// the page the user goes back to counts it; the job makes sure of it.
// The post's keys are not among the server's Written: every page that
// shows the post would read them from Redis for a while, and a count
// that lags a moment behind the reader's own mark is no harm.
func (s *Store) writeMark(ctx context.Context, k markKind, uid, pid int64, on bool) error {
	key, now := k.key(uid), time.Now().UnixMilli()
	s.Written.Add(key) // the next page shows it
	mark := s.C.B().Zrem().Key(key).Member(kernel.ID(pid)).Build()
	if on {
		mark = kernel.MarkAdd.Cmd(s.C, []string{key}, kernel.ID(pid), strconv.FormatInt(now, 10))
	}
	if k.job == "" {
		return s.Wrap("mark a post", redisconn.FirstErr(s.Replicated(ctx, func() rueidis.Commands { return rueidis.Commands{mark} }, key)))
	}
	if !on {
		now = 0
	}
	_, err := s.OnShard(ctx, uid, func(q schema.Queue) rueidis.Commands {
		return rueidis.Commands{mark, index.FavouriteSyncCmd(s.C, pid, uid, now), s.JobCmd(q, k.job, pid, uid)}
	}, key)
	return s.Wrap("mark a post", err)
}

// markedPosts returns a page of the posts uid marked with k, newest mark
// first, as viewer sees them (see posts.Store.MarkedPosts).
func (s *Store) markedPosts(ctx context.Context, k markKind, viewer, uid int64, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.MarkedPosts(ctx, viewer, k.key(uid), c, n)
}
