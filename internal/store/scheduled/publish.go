package scheduled

import (
	"context"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxDuePerShard bounds how many posts of one shard of the due times a
// round publishes; the rest wait for the next round.
const MaxDuePerShard = 200

// PublishDue publishes the scheduled posts due at now, of every shard,
// and returns how many it published. Each is published through
// posts.Store.Publish with an idempotency key of its own id, then
// removed: a round that dies between the two, or two rounds at once,
// publish it once, the second finding the key used (Publish answers the
// post published already). A post whose publication is refused for good
// (its text, its reply gone, its author gone or suspended) is dropped
// and logged; one refused for now (a rate limit, a node away, the post
// being published by another round) waits for the next round.
func (s *Store) PublishDue(ctx context.Context, now time.Time) (int, error) {
	published := 0
	for n := range schema.DueShards {
		k, err := s.publishShard(ctx, n, now)
		published += k
		if err != nil {
			return published, err
		}
	}
	return published, nil
}

// publishShard publishes the posts of shard n of the due times due at
// now.
func (s *Store) publishShard(ctx context.Context, n int, now time.Time) (int, error) {
	b := s.st.C.B()
	due, err := s.st.C.Do(ctx, b.Zrange().Key(schema.Due(n)).Min("-inf").Max(strconv.FormatInt(now.Unix(), 10)).
		Byscore().Limit(0, MaxDuePerShard).Build()).AsStrSlice()
	if err != nil {
		return 0, s.st.Wrap("scheduled: due", err)
	}
	published := 0
	for _, m := range due {
		done, err := s.publishOne(ctx, n, m)
		if err != nil {
			return published, err
		}
		if done {
			published++
		}
	}
	return published, nil
}

// publishOne publishes the scheduled post of member m of shard n of the
// due times, and says whether it did.
func (s *Store) publishOne(ctx context.Context, n int, m string) (bool, error) {
	uid, id, ok := schema.DueMemberOf(m)
	if !ok {
		return false, s.drop(ctx, n, m, 0, 0)
	}
	p, err := s.Get(ctx, uid, id)
	if retwis.ErrorKind(err) == retwis.NotFound { // cancelled, or its author deleted
		return false, s.drop(ctx, n, m, 0, 0)
	}
	if err != nil {
		return false, err
	}
	d, err := p.Draft()
	if err == nil {
		d.Media, d.Attach, err = mediastore.New(s.st).ForPost(ctx, uid, p.Media, d.Key)
	}
	if err == nil {
		_, err = s.st.Publish(ctx, d)
	}
	if err != nil && transient(err) {
		s.st.Log.Warn("a scheduled post waits for the next round", "user", uid, "id", id, "err", err)
		return false, nil
	}
	if err != nil {
		s.st.Log.Warn("a scheduled post is refused; it is dropped", "user", uid, "id", id, "err", err)
	}
	return err == nil, s.drop(ctx, n, m, uid, id)
}

// transient says whether a publication that failed with err may succeed
// later.
func transient(err error) bool {
	switch retwis.ErrorKind(err) {
	case retwis.Internal, retwis.Unavailable, retwis.TooMany, retwis.Conflict, retwis.Canceled:
		return true
	}
	return false
}

// drop removes member m from shard n of the due times, and uid's
// scheduled post id (if uid is not 0) first.
func (s *Store) drop(ctx context.Context, n int, m string, uid, id int64) error {
	b := s.st.C.B()
	if uid != 0 {
		if err := s.st.C.Do(ctx, b.Hdel().Key(schema.Scheduled(uid)).Field(kernel.ID(id)).Build()).Error(); err != nil {
			return s.st.Wrap("scheduled: remove", err)
		}
	}
	return s.st.Wrap("scheduled: remove due", s.st.C.Do(ctx, b.Zrem().Key(schema.Due(n)).Member(m).Build()).Error())
}
