package interact

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Boost boosts post pid (a boost of a boost boosts its post) for uid,
// who must see it (and it must be public or unlisted: Boostable), and
// returns the boost: a post of uid's own, without
// a body, whose Reblog is pid. It goes on uid's posts and, unless uid
// has the post already, home timeline at once; its job (JobBoost, see
// package delivery) counts it, notifies the post's author and pushes it
// to uid's followers. Boosting a post uid boosted already returns that
// boost: a boost is made once, so a request sent again (with its
// idempotency key or without) makes no other. It costs as a post does
// against the rate limit of posts, and takes four round trips besides
// the read of the post (cached): the booster's state, the rate limit,
// the boost's hash, then its entries and its job at once.
func (s *Store) Boost(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	post, err := s.Post(ctx, uid, pid)
	if err != nil {
		return retwis.Post{}, err
	}
	if post.Reblog != nil {
		post = *post.Reblog
	}
	if !post.Visibility.Boostable() {
		return retwis.Post{}, retwis.Errorf(retwis.Invalid, "This post is %s: only public and unlisted posts can be boosted.", post.Visibility.Label())
	}
	name, bid, err := s.boosterState(ctx, uid, post.ID)
	if err != nil || bid > 0 {
		if err != nil {
			return retwis.Post{}, err
		}
		return s.Post(ctx, uid, bid)
	}
	if _, err := s.Take(ctx, accounts.Subject(schema.PostLimit(uid)), s.Opts.Limits.Posts); err != nil {
		return retwis.Post{}, err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	now := time.Now()
	// A hash given up (its node failing) may stand without its answer:
	// maintenance takes it back when it cannot be at once, as a post's.
	bid, err = s.CreateHash(ctx, 0, schema.NextPostID, schema.Post, func(ctx context.Context, bid int64) error {
		return s.TakeBackLater(ctx, bid, uid)
	}, index.BoostFields(uid, name, now.Unix(), post.ID, retwis.User{ID: post.AuthorID, Username: post.Author})...)
	if err != nil {
		return retwis.Post{}, err
	}
	if first, err := s.publishBoost(ctx, uid, bid, post); err != nil || first > 0 {
		if err != nil {
			return retwis.Post{}, err
		}
		return s.Post(ctx, uid, first)
	}
	post.Reblogged, post.Reblogs = true, post.Reblogs+1 // as read before; its job counts it
	return retwis.Post{ID: bid, AuthorID: uid, Author: name, Time: now.Truncate(time.Second), Reblog: &post}, nil
}

// boosterState returns, in one round trip, uid's username (refusing a
// suspended account) and their boost of pid (0: none).
func (s *Store) boosterState(ctx context.Context, uid, pid int64) (string, int64, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldSuspended).Build(),
		b.Hget().Key(schema.Boosts(uid)).Field(kernel.ID(pid)).Build())
	vals, err := res[0].ToArray()
	if err != nil {
		return "", 0, s.Wrap("boost: booster", err)
	}
	name, err := vals[0].ToString()
	switch {
	case err != nil:
		return "", 0, retwis.Errorf(retwis.NotFound, "There is no such user.")
	case !vals[1].IsNil():
		return "", 0, accounts.ErrSuspended
	}
	bid, err := res[1].AsInt64()
	if rueidis.IsRedisNil(err) {
		return name, 0, nil
	}
	return name, bid, s.Wrap("boost", err)
}

// boostOf returns the boost of pid by uid (0: none).
func (s *Store) boostOf(ctx context.Context, uid, pid int64) (int64, error) {
	bid, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.Boosts(uid)).Field(kernel.ID(pid)).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	return bid, s.Wrap("boost", err)
}

// publishBoost records boost bid of post by uid (its mark, uid's posts
// and home timeline) and, at the same time, its job, and the boost among
// the recent ones (schema.BoostRecord: what maintenance looks at for a
// job that vanished; not waited for, and a record that fails is only
// a net less, as the global timeline's push is a post's); if another boost of
// the post by uid got there first, bid is taken back and that boost
// returned (its job finds bid gone and does nothing); if a write fails,
// bid is taken back.
func (s *Store) publishBoost(ctx context.Context, uid, bid int64, post retwis.Post) (first int64, err error) {
	b := s.C.B()
	boosted := kernel.Boosted{ID: bid, Of: post.ID, Author: post.AuthorID}
	s.Written.Add(schema.Home(uid), schema.UserPosts(uid), schema.Boosts(uid))
	var jobErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		jobErr = s.Enqueue(ctx, uid, func(q schema.Queue) rueidis.Commands {
			return rueidis.Commands{schema.BoostJob(b, q, schema.JobBoost, bid, uid, post.ID)}
		})
	})
	wg.Go(func() { s.C.Do(ctx, schema.BoostRecord(b, schema.JobBoost, bid, uid, post.ID)) })
	res := s.Replicated(ctx, func() rueidis.Commands {
		return append(index.Commands(s.C, index.BoostWrites(uid, bid, post.ID)), s.PushBoostCmd(uid, 0, boosted))
	}, schema.Boosts(uid))
	wg.Wait()
	err = errors.Join(redisconn.FirstErr(res), jobErr)
	if claimed, _ := res[0].AsBool(); err == nil && !claimed {
		if first, err = s.boostOf(ctx, uid, post.ID); err == nil && first == 0 {
			err = errBoostedMeanwhile // and taken back meanwhile
		}
	}
	if err != nil || first > 0 {
		s.takeBackBoost(ctx, uid, bid, post.ID)
	}
	return first, s.Wrap("boost", err)
}

// errBoostedMeanwhile is publishBoost's when a boost of the same post by
// the same user got there first, and was taken back before it could be
// read: the user may try again.
var errBoostedMeanwhile = retwis.Errorf(retwis.Conflict, "This post was boosted and unboosted meanwhile. Please try again.")

// takeBackBoost deletes boost bid of pid by uid that failed to publish,
// from wherever it got: its mark, uid's posts and home timeline.
func (s *Store) takeBackBoost(ctx context.Context, uid, bid, pid int64) {
	b := s.C.B()
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		return append(rueidis.Commands{
			kernel.DropBoostCmd(s.C, uid, pid, bid),
			b.Zrem().Key(schema.UserPosts(uid)).Member(kernel.ID(bid)).Build(),
			b.Del().Key(schema.Post(bid)).Build(),
		}, kernel.UnboostHomeCmds(s.C, uid, bid)...)
	}))
	if err != nil {
		s.Log.Warn("a boost that failed to publish stays in part (readers skip it; the check finds it)", "boost", bid, "err", err)
	}
}

// Unboost takes back uid's boost of post pid (or of the post boosted by
// boost pid), if any, and returns the post: the boost is deleted as a
// post is (see DeletePost), its job taking it off the timelines and out
// of the post's count. A boost of a post uid no longer sees (its author
// blocked them, or deleted it) is taken back too, the error of the
// post's read returned.
func (s *Store) Unboost(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	of := pid
	bid, err := s.boostOf(ctx, uid, of)
	if err != nil {
		return retwis.Post{}, err
	}
	post, readErr := s.Post(ctx, uid, pid)
	if readErr == nil && post.Reblog != nil {
		post, of = *post.Reblog, post.Reblog.ID
		if bid, err = s.boostOf(ctx, uid, of); err != nil {
			return retwis.Post{}, err
		}
	}
	if bid > 0 {
		if err := s.deleteBoost(ctx, uid, of, bid); err != nil {
			return retwis.Post{}, err
		}
		if post.Reblogged {
			post.Reblogged, post.Reblogs = false, max(post.Reblogs-1, 0) // as read before; its job uncounts it
		}
	}
	return post, readErr
}

// deleteBoost deletes boost bid of post pid by uid, and uid's mark of it,
// and records the take-back among the recent boosts (as publishBoost
// does the boost), after its job.
func (s *Store) deleteBoost(ctx context.Context, uid, pid, bid int64) error {
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	s.Written.Add(schema.Boosts(uid))
	if err := s.Store.DeletePost(ctx, uid, bid); err != nil && retwis.ErrorKind(err) != retwis.NotFound {
		return err
	}
	err := s.Pipeline(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.DropBoostCmd(s.C, uid, pid, bid), schema.BoostRecord(s.C.B(), schema.JobUnboost, bid, uid, pid)}
	})[0].Error()
	return s.Wrap("unboost", err)
}

// DeletePost deletes post pid, which must be by uid, as
// posts.Store.DeletePost does; a boost is taken back as Unboost does,
// so that its booster's mark goes with it and the take-back is recorded
// (the pages' Delete, the API's DELETE of a boost's status, a
// moderator's deletion).
func (s *Store) DeletePost(ctx context.Context, uid, pid int64) error {
	if p, err := s.ModeratedPost(ctx, pid); err == nil && p.Reblog != nil && p.AuthorID == uid {
		return s.deleteBoost(ctx, uid, p.Reblog.ID, pid)
	}
	return s.Store.DeletePost(ctx, uid, pid)
}

// RebloggedBy returns a page of the users who boosted post pid, which
// viewer must see, the latest first, paged as Followers is.
func (s *Store) RebloggedBy(ctx context.Context, viewer, pid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	if _, err := s.Post(ctx, viewer, pid); err != nil {
		return retwis.FollowPage{}, err
	}
	return s.UserPage(ctx, schema.RebloggedBy(pid), c, n)
}
