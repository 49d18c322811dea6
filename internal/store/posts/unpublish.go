package posts

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// unpublish takes back what a failed Publish may have written (see
// takeBack). What cannot be taken back now (a master is failing) is
// recorded on a shard of the queue that can be reached, for maintenance
// to take back (TakeBackPosts); only if that fails too is the post
// logged, and left to the check.
func (s *Store) unpublish(ctx context.Context, pid, author int64) {
	err := s.takeBack(ctx, pid, author)
	if err == nil {
		return
	}
	if rerr := s.TakeBackLater(ctx, pid, author); rerr != nil {
		s.Log.Error("a post that failed to publish could not be taken back, nor recorded to be; the check will find it",
			"post", pid, "author", author, "err", err, "record", rerr)
	}
}

// TakeBackLater records post pid (or a boost) of author on a shard of the queue that
// can be reached, for maintenance to take back (TakeBackPosts).
func (s *Store) TakeBackLater(ctx context.Context, pid, author int64) error {
	member := schema.Unpublished(pid, author)
	_, err := s.OnShard(ctx, author, func(q schema.Queue) rueidis.Commands {
		return rueidis.Commands{s.C.B().Zadd().Key(q.Unpublish).ScoreMember().ScoreMember(float64(time.Now().UnixMilli()), member).Build()}
	})
	return err
}

// takeBack deletes post pid of author and its entries in the author's
// posts, home timeline and the global timeline, all at once: each is
// done or not whatever becomes of the others (readers skip the ids of
// posts that are gone, and an index that lost its post no longer counts
// it), and the author's entry in the directory is refreshed. A delivery
// job recorded later finds no post and does nothing; but a post that
// was there may have reached followers' home timelines already (its
// delivery job ran, or a follow copied the author's posts), so the post
// this deletes is taken off them as a deleted one is (undeliver).
func (s *Store) takeBack(ctx context.Context, pid, author int64) error {
	b := s.C.B()
	p := kernel.ID(pid)
	s.Written.Add(schema.Post(pid), schema.Home(author), schema.UserPosts(author))
	res := s.C.DoMulti(ctx,
		b.Del().Key(schema.Post(pid)).Build(),
		b.Zrem().Key(schema.UserPosts(author)).Member(p).Build(),
		b.Lrem().Key(schema.Home(author)).Count(0).Element(p).Build(),
		b.Lrem().Key(schema.Timeline).Count(0).Element(p).Build())
	if deleted, _ := res[0].AsInt64(); deleted == 1 {
		s.undeliver(ctx, pid, author)
	}
	var errs []error
	for _, r := range res {
		errs = append(errs, r.Error())
	}
	if err := errors.Join(errs...); err != nil {
		return s.Wrap("take back a post", err)
	}
	s.RefreshQuietly(ctx, author)
	return nil
}

// TakeBackPosts takes back the posts whose publication failed and that
// could not be taken back at once (see unpublish), a batch of each shard
// of the queue, and returns how many; a post that cannot be taken back
// yet stays for the next call, whose error is returned after the other
// shards are done. Maintenance (upkeep.Round) calls it every round.
func (s *Store) TakeBackPosts(ctx context.Context) (int, error) {
	done := 0
	var first error
	for n := range schema.QueueShards {
		k, err := s.takeBackShard(ctx, schema.QueueN(n))
		done += k
		if first == nil {
			first = err
		}
	}
	return done, first
}

// takeBackBatch is how many posts of a shard TakeBackPosts takes back
// at a time.
const takeBackBatch = 100

// takeBackShard is TakeBackPosts on shard q.
func (s *Store) takeBackShard(ctx context.Context, q schema.Queue) (int, error) {
	b := s.C.B()
	members, err := s.C.Do(ctx, b.Zrange().Key(q.Unpublish).Min("0").Max(strconv.Itoa(takeBackBatch-1)).Build()).AsStrSlice()
	if err != nil {
		return 0, s.Wrap("maintenance: read the posts to take back", err)
	}
	done := 0
	for _, m := range members {
		if pid, author, ok := schema.UnpublishedOf(m); ok {
			if err := s.takeBack(ctx, pid, author); err != nil {
				return done, err
			}
		}
		if err := s.C.Do(ctx, b.Zrem().Key(q.Unpublish).Member(m).Build()).Error(); err != nil {
			return done, s.Wrap("maintenance: a post taken back", err)
		}
		done++
	}
	return done, nil
}
