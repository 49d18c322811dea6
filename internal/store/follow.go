package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Follow makes follower follow followee, recording the time in both
// sorted sets as the tutorial does, notifies followee (in the same
// pipeline), and backfills followee's recent posts into follower's home
// timeline, in order. Following again only refreshes the time. The two
// sets may live on different cluster nodes, so they are written in one
// pipeline rather than one transaction, acknowledged once replicated
// (Options.WaitReplicas), as a change under way (see change): a follow
// whose request fails is complete once maintenance has repaired it, or
// did not happen, never half done. Once begun it completes even if the
// client goes away.
func (s *Store) Follow(ctx context.Context, follower, followee int64) error {
	if follower == followee {
		return retwis.Errorf(retwis.Invalid, "You cannot follow yourself.")
	}
	if err := s.mayFollow(ctx, follower, followee); err != nil {
		return err
	}
	if _, err := s.Take(ctx, accounts.Subject(schema.FollowLimit(follower)), s.Opts.Limits.Follows); err != nil {
		return err
	}
	at := time.Now()
	now := float64(at.Unix())
	b := s.C.B()
	note := kernel.Notified{User: followee, Note: schema.Note(schema.NoteFollow, follower, 0), At: at.UnixMilli()}
	err := s.change(ctx, "follow", follower, followee, func() rueidis.Commands {
		cmds := append(rueidis.Commands{
			b.Zadd().Key(schema.Following(follower)).ScoreMember().ScoreMember(now, kernel.ID(followee)).Build(),
			b.Zadd().Key(schema.Followers(followee)).ScoreMember().ScoreMember(now, kernel.ID(follower)).Build(),
		}, index.NotifyCmds(s.C, note.User, note.Note, note.At)...)
		cmds = append(cmds, b.Del().Key(schema.Suggestions(follower)).Build())
		return append(cmds, index.Commands(s.C, index.EdgeWrites("ZADD", follower, schema.RelFollows, followee))...)
	})
	if err == nil {
		s.Push(ctx, note)
	}
	return err
}

// mayFollow refuses a follow when either of the two blocked the other,
// and a new follow of an account that follows Limits.MaxFollowing
// accounts already (following again someone followed is no new follow).
// It reads four keys of follower's slot in one call through the
// client-side cache (this server's own follows are read from Redis for a
// few seconds after, see written): no round trip when warm.
func (s *Store) mayFollow(ctx context.Context, follower, followee int64) error {
	b := s.C.B()
	res := s.CachedMulti(ctx,
		rueidis.CT(b.Zscore().Key(schema.BlockedBy(follower)).Member(kernel.ID(followee)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zscore().Key(schema.Blocks(follower)).Member(kernel.ID(followee)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zscore().Key(schema.Following(follower)).Member(kernel.ID(followee)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zcard().Key(schema.Following(follower)).Cache(), s.Opts.CacheTTL))
	var found [3]bool // blocked by followee, blocking followee, following followee
	for i := range found {
		if err := res[i].Error(); err != nil && !rueidis.IsRedisNil(err) {
			return s.Wrap("follow: read", err)
		}
		found[i] = res[i].Error() == nil
	}
	n, err := res[3].AsInt64()
	bound := s.Opts.Limits.MaxFollowing
	switch {
	case err != nil:
		return s.Wrap("follow: count", err)
	case found[0]:
		return retwis.Errorf(retwis.Forbidden, "You cannot follow this account.")
	case found[1]:
		return retwis.Errorf(retwis.Invalid, "You blocked this account. Unblock it to follow it.")
	case bound > 0 && n >= bound && !found[2]:
		return retwis.Errorf(retwis.Invalid, "You follow %d accounts, the most one account may follow. Unfollow some to follow others.", bound)
	}
	return nil
}

// Unfollow undoes Follow and takes followee's posts off follower's home
// timeline, as a change under way like Follow's. Unfollowing someone not
// followed does nothing.
func (s *Store) Unfollow(ctx context.Context, follower, followee int64) error {
	if follower == followee {
		return retwis.Errorf(retwis.Invalid, "You cannot unfollow yourself.")
	}
	return s.change(ctx, "unfollow", follower, followee, func() rueidis.Commands {
		return index.Commands(s.C, UnfollowWrites(follower, followee))
	})
}

// change writes a follow or unfollow (op) of followee by follower, the
// commands writes returns, then brings follower's home timeline in line
// (settleFollow). Before its first write it records the change under
// way on a shard of the queue (beginChange), and takes the record back
// once all is done: a change whose request fails midway keeps its
// record, and maintenance completes it (RepairFollows) by the truth,
// follower's set of users followed. A change refused before its record
// is written has no effect.
func (s *Store) change(ctx context.Context, op string, follower, followee int64, writes func() rueidis.Commands) error {
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	s.Written.Add(schema.Following(follower), schema.Followers(followee), schema.Home(follower), schema.Graph(follower), schema.Graph(followee), schema.Suggestions(follower))
	done, err := s.beginChange(ctx, follower, followee)
	if err != nil {
		return s.Wrap(op, err)
	}
	err = redisconn.FirstErr(s.Replicated(ctx, writes, schema.Following(follower), schema.Followers(followee)))
	if err != nil {
		return s.Wrap(op, err)
	}
	s.RefreshQuietly(ctx, followee)
	if err := s.settleFollow(ctx, follower, followee); err != nil {
		return err
	}
	done(ctx)
	return nil
}

// UnfollowWrites are the plain commands that end a follow: out of both
// sets and the graph, and follower's suggestions forgotten. Each is
// safe to repeat.
func UnfollowWrites(follower, followee int64) [][]string {
	return append([][]string{
		{"ZREM", schema.Following(follower), kernel.ID(followee)},
		{"ZREM", schema.Followers(followee), kernel.ID(follower)},
		{"DEL", schema.Suggestions(follower)},
	}, index.EdgeWrites("ZREM", follower, schema.RelFollows, followee)...)
}

// maxSettle bounds how often untilSettled goes round; each round that
// does not settle means another follow or unfollow of the same pair ran
// in between, and that one settles the pair in turn.
const maxSettle = 5

// settleFollow brings follower's home timeline and set of followed
// celebrities in line with whether follower now follows followee:
// backfilled or emptied of followee's posts (see untilSettled).
func (s *Store) settleFollow(ctx context.Context, follower, followee int64) error {
	return s.untilSettled(ctx, follower, followee, func(following bool) error {
		if following {
			return s.addFollowee(ctx, follower, followee)
		}
		return s.removeFollowee(ctx, follower, followee)
	})
}

// untilSettled reads whether follower follows followee and calls apply
// with the answer, then reads the relation again and goes round until it
// has not changed, so that of several overlapping follows and unfollows
// of the same pair (a double click, two tabs, a repair), the last to
// finish leaves what apply writes matching the relation.
func (s *Store) untilSettled(ctx context.Context, follower, followee int64, apply func(following bool) error) error {
	following, err := s.follows(ctx, follower, followee)
	for range maxSettle {
		if err != nil {
			return err
		}
		if err := apply(following); err != nil {
			return err
		}
		var now bool
		if now, err = s.follows(ctx, follower, followee); err == nil && now == following {
			return nil
		}
		following = now
	}
	return err
}

// follows reports whether follower follows followee.
func (s *Store) follows(ctx context.Context, follower, followee int64) (bool, error) {
	err := s.C.Do(ctx, s.C.B().Zscore().Key(schema.Following(follower)).Member(kernel.ID(followee)).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return err == nil, s.Wrap("follows", err)
}

// addFollowee backfills followee's posts into follower's home timeline,
// or, for a celebrity, whose posts are merged when read, records it among
// follower's followed celebrities.
func (s *Store) addFollowee(ctx context.Context, follower, followee int64) error {
	b := s.C.B()
	celeb, err := s.isCelebrity(ctx, followee)
	if err != nil {
		return err
	}
	if celeb {
		s.Written.Add(schema.FollowedCelebrities(follower))
		err := s.C.Do(ctx, b.Sadd().Key(schema.FollowedCelebrities(follower)).Member(kernel.ID(followee)).Build()).Error()
		if err != nil {
			return s.Wrap("follow: celebrity", err)
		}
	}
	return s.Backfill(ctx, follower, followee)
}

// removeFollowee takes followee off follower's followed celebrities,
// out of follower's lists, and followee's posts off follower's home
// timeline.
func (s *Store) removeFollowee(ctx context.Context, follower, followee int64) error {
	s.Written.Add(schema.FollowedCelebrities(follower))
	err := s.C.Do(ctx, s.C.B().Srem().Key(schema.FollowedCelebrities(follower)).Member(kernel.ID(followee)).Build()).Error()
	if err != nil {
		return s.Wrap("unfollow: celebrity", err)
	}
	if err := s.LeaveLists(ctx, follower, followee); err != nil {
		return err
	}
	return s.RemoveAuthor(ctx, follower, followee)
}

// isCelebrity reports whether uid's posts are merged at read time rather
// than fanned out (the user hash's celebrity flag).
func (s *Store) isCelebrity(ctx context.Context, uid int64) (bool, error) {
	v, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldCelebrity).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return v == "1", s.Wrap("celebrity", err)
}

// IsCelebrity reports whether uid's posts are merged at read time rather
// than fanned out.
func (s *Store) IsCelebrity(ctx context.Context, uid int64) (bool, error) {
	return s.isCelebrity(ctx, uid)
}
