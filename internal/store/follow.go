package store

import (
	"context"
	"time"

	"github.com/retwis/retwis"
)

// Follow makes follower follow followee, recording the time in both
// sorted sets as the tutorial does, and backfills followee's recent posts
// into follower's home timeline, in order. Following again only refreshes
// the time. The two sets may live on different cluster nodes, so they are
// written in one pipeline rather than one transaction; every step is
// idempotent, so a retry repairs a half-done follow.
func (s *Store) Follow(ctx context.Context, follower, followee int64) error {
	if follower == followee {
		return retwis.Errorf(retwis.Invalid, "You cannot follow yourself.")
	}
	now := float64(time.Now().Unix())
	b := s.c.B()
	err := firstErr(s.c.DoMulti(ctx,
		b.Zadd().Key(keyFollowing(follower)).ScoreMember().ScoreMember(now, id(followee)).Build(),
		b.Zadd().Key(keyFollowers(followee)).ScoreMember().ScoreMember(now, id(follower)).Build(),
	))
	if err != nil {
		return s.wrap("follow", err)
	}
	return s.backfill(ctx, follower, followee)
}

// Unfollow undoes Follow and takes followee's posts off follower's home
// timeline. Unfollowing someone not followed does nothing.
func (s *Store) Unfollow(ctx context.Context, follower, followee int64) error {
	if follower == followee {
		return retwis.Errorf(retwis.Invalid, "You cannot unfollow yourself.")
	}
	b := s.c.B()
	err := firstErr(s.c.DoMulti(ctx,
		b.Zrem().Key(keyFollowing(follower)).Member(id(followee)).Build(),
		b.Zrem().Key(keyFollowers(followee)).Member(id(follower)).Build(),
	))
	if err != nil {
		return s.wrap("unfollow", err)
	}
	return s.removeAuthor(ctx, follower, followee)
}
