package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Block makes uid block target: target's posts, mentions and
// notifications no longer reach uid, uid's posts are hidden from target
// when logged in, target cannot follow uid, and follows between the two
// end, both ways. Blocking again refreshes the time.
//
// The block is written in uid's slot first (blocks:{uid}), then in
// target's (blocked_by:{target}), which is what target's reads are
// filtered with, then the follows are undone; each step is idempotent, so
// a retry after a failure completes it.
func (s *Store) Block(ctx context.Context, uid, target int64) error {
	if err := s.mayMuffle(ctx, uid, target, schema.Blocks(uid), "block"); err != nil {
		return err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	b := s.C.B()
	now := float64(time.Now().Unix())
	s.Written.Add(schema.Blocks(uid), schema.BlockedBy(target))
	for _, cmd := range []rueidis.Completed{
		b.Zadd().Key(schema.Blocks(uid)).ScoreMember().ScoreMember(now, kernel.ID(target)).Build(),
		b.Zadd().Key(schema.BlockedBy(target)).ScoreMember().ScoreMember(now, kernel.ID(uid)).Build(),
	} {
		if err := s.C.Do(ctx, cmd).Error(); err != nil {
			return s.Wrap("block", err)
		}
	}
	for _, pair := range [][2]int64{{uid, target}, {target, uid}} {
		following, err := s.follows(ctx, pair[0], pair[1])
		if err == nil && following {
			err = s.Unfollow(ctx, pair[0], pair[1])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Unblock undoes Block (the follows it ended stay ended). Unblocking
// someone not blocked does nothing.
func (s *Store) Unblock(ctx context.Context, uid, target int64) error {
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	b := s.C.B()
	s.Written.Add(schema.Blocks(uid), schema.BlockedBy(target))
	for _, cmd := range []rueidis.Completed{
		b.Zrem().Key(schema.Blocks(uid)).Member(kernel.ID(target)).Build(),
		b.Zrem().Key(schema.BlockedBy(target)).Member(kernel.ID(uid)).Build(),
	} {
		if err := s.C.Do(ctx, cmd).Error(); err != nil {
			return s.Wrap("unblock", err)
		}
	}
	return nil
}

// Mute makes uid mute target: target's posts leave uid's timelines (home,
// global, tags); nothing else changes. Muting again refreshes the time.
func (s *Store) Mute(ctx context.Context, uid, target int64) error {
	if err := s.mayMuffle(ctx, uid, target, schema.Mutes(uid), "mute"); err != nil {
		return err
	}
	s.Written.Add(schema.Mutes(uid))
	cmd := s.C.B().Zadd().Key(schema.Mutes(uid)).ScoreMember().ScoreMember(float64(time.Now().Unix()), kernel.ID(target)).Build()
	return s.Wrap("mute", s.C.Do(ctx, cmd).Error())
}

// Unmute undoes Mute. Unmuting someone not muted does nothing.
func (s *Store) Unmute(ctx context.Context, uid, target int64) error {
	s.Written.Add(schema.Mutes(uid))
	return s.Wrap("unmute", s.C.Do(ctx, s.C.B().Zrem().Key(schema.Mutes(uid)).Member(kernel.ID(target)).Build()).Error())
}

// mayMuffle refuses a block or mute (verb) by uid of target, kept in key,
// if target is uid, does not exist, or key holds retwis.MaxBlocks users
// already (doing it again is allowed).
func (s *Store) mayMuffle(ctx context.Context, uid, target int64, key, verb string) error {
	if uid == target {
		return retwis.Errorf(retwis.Invalid, "You cannot %s yourself.", verb)
	}
	names, err := s.Usernames(ctx, []int64{target})
	if err != nil {
		return err
	}
	if names[target] == "" {
		return retwis.Errorf(retwis.NotFound, "There is no user %d.", target)
	}
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Zcard().Key(key).Build(), b.Zscore().Key(key).Member(kernel.ID(target)).Build())
	n, err := res[0].AsInt64()
	if err != nil {
		return s.Wrap(verb, err)
	}
	if err := res[1].Error(); n < retwis.MaxBlocks || err == nil {
		return nil
	} else if !rueidis.IsRedisNil(err) {
		return s.Wrap(verb, err)
	}
	return retwis.Errorf(retwis.Invalid, "You can %s at most %d accounts. Undo some first.", verb, retwis.MaxBlocks)
}

// Blocks returns the users uid blocked, the newest first.
func (s *Store) Blocks(ctx context.Context, uid int64) ([]retwis.ListedUser, error) {
	return s.muffles(ctx, schema.Blocks(uid), "blocks")
}

// Mutes returns the users uid muted, the newest first.
func (s *Store) Mutes(ctx context.Context, uid int64) ([]retwis.ListedUser, error) {
	return s.muffles(ctx, schema.Mutes(uid), "mutes")
}

// muffles reads the users of key, a sorted set of user ids scored by
// unix time, the newest first, with their names; deleted accounts are
// left out.
func (s *Store) muffles(ctx context.Context, key, what string) ([]retwis.ListedUser, error) {
	entries, err := s.C.Do(ctx, s.C.B().Zrevrange().Key(key).Start(0).Stop(-1).Withscores().Build()).AsZScores()
	if err != nil {
		return nil, s.Wrap(what, err)
	}
	return s.UsersSince(ctx, entries)
}
