package store

import (
	"cmp"
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// FollowChangeGrace is how old a record of a follow or unfollow under
// way must be before maintenance completes it: longer than a request
// may go on writing (kernel.WriteTimeout), so that what it repairs is a
// change whose request has ended.
const FollowChangeGrace = kernel.WriteTimeout + 5*time.Second

// changeBatch is how many changes of a shard RepairFollows reads at a
// time.
const changeBatch = 100

// beginChange records on a shard of the queue that follower is changing
// whether it follows followee (schema.FollowChange), replicated, and
// returns what takes the record back once the change is complete; a
// record that could not be taken back is completed again by
// maintenance, which is harmless.
func (s *Store) beginChange(ctx context.Context, follower, followee int64) (done func(context.Context), err error) {
	at := time.Now()
	member := schema.FollowChange(follower, followee, at.UnixNano())
	q, err := s.OnShard(ctx, follower, func(q schema.Queue) rueidis.Commands {
		return rueidis.Commands{s.C.B().Zadd().Key(q.Follows).ScoreMember().ScoreMember(float64(at.UnixMilli()), member).Build()}
	})
	if err != nil {
		return nil, s.Wrap("record the change", err)
	}
	return func(ctx context.Context) {
		if err := s.C.Do(ctx, s.C.B().Zrem().Key(q.Follows).Member(member).Build()).Error(); err != nil {
			s.Log.Warn("a complete follow left its record; maintenance will take it back", "follower", follower, "followee", followee, "err", err)
		}
	}, nil
}

// RepairFollows completes the follows and unfollows recorded as under
// way since before before (a request that failed midway, or a server that
// stopped): for each, it makes followee's followers, the graph and
// follower's home timeline agree with follower's set of users followed,
// which is the truth (see completeChange), then takes the record back.
// It returns how many it completed; a shard that cannot be read or
// repaired is left for the next call, after the others are done, and its
// error returned. Maintenance (upkeep.Round) calls it every round with
// before FollowChangeGrace ago.
func (s *Store) RepairFollows(ctx context.Context, before time.Time) (int, error) {
	repaired := 0
	var first error
	for n := range schema.QueueShards {
		done, err := s.repairShard(ctx, schema.QueueN(n), before)
		repaired += done
		first = cmp.Or(first, err)
	}
	return repaired, first
}

// repairShard is RepairFollows on shard q.
func (s *Store) repairShard(ctx context.Context, q schema.Queue, before time.Time) (int, error) {
	b := s.C.B()
	members, err := s.C.Do(ctx, b.Zrange().Key(q.Follows).Min("-inf").Max("("+strconv.FormatInt(before.UnixMilli(), 10)).
		Byscore().Limit(0, changeBatch).Build()).AsStrSlice()
	if err != nil {
		return 0, s.Wrap("maintenance: read follows under way", err)
	}
	repaired := 0
	for _, m := range members {
		follower, followee, valid := schema.FollowChangeOf(m)
		complete := !valid // a member that is no change is only taken out
		if valid {
			if complete, err = s.completeChange(ctx, follower, followee); err != nil {
				return repaired, err
			}
		}
		if !complete { // an account of the two is being deleted: its deletion ends the follow
			continue
		}
		if err := s.C.Do(ctx, b.Zrem().Key(q.Follows).Member(m).Build()).Error(); err != nil {
			return repaired, s.Wrap("maintenance: take back a follow under way", err)
		}
		repaired++
	}
	return repaired, nil
}

// completeChange makes the follow of followee by follower complete on
// every side if follower's set of users followed holds it, and absent
// from every side if not; a follow of or by an account that is gone is
// ended on every side. It goes round until the relation it read has not
// changed (untilSettled), so a follow or unfollow of the same pair made
// meanwhile is not undone. It does nothing, and reports false, while
// either account is being deleted.
func (s *Store) completeChange(ctx context.Context, follower, followee int64) (bool, error) {
	present, err := s.bothPresent(ctx, follower, followee)
	if err != nil || !present {
		return present, err
	}
	return true, s.untilSettled(ctx, follower, followee, func(following bool) error {
		if err := s.completeSides(ctx, follower, followee, following); err != nil {
			return err
		}
		s.RefreshQuietly(ctx, followee)
		if following {
			return s.addFollowee(ctx, follower, followee)
		}
		return s.removeFollowee(ctx, follower, followee)
	})
}

// bothPresent reports whether neither follower nor followee is being
// deleted; of one that is gone, it ends the follow on every side first.
func (s *Store) bothPresent(ctx context.Context, follower, followee int64) (bool, error) {
	b := s.C.B()
	var probes rueidis.Commands
	for _, uid := range []int64{follower, followee} {
		probes = append(probes, b.Exists().Key(schema.Deleting(uid)).Build(),
			b.Hexists().Key(schema.User(uid)).Field(schema.FieldUsername).Build())
	}
	var n [4]int64
	for i, r := range s.C.DoMulti(ctx, probes...) {
		var err error
		if n[i], err = r.AsInt64(); err != nil {
			return false, s.Wrap("maintenance: read the accounts of a follow", err)
		}
	}
	switch {
	case n[0] == 1 || n[2] == 1:
		return false, nil
	case n[1] == 0 || n[3] == 0:
		err := redisconn.FirstErr(s.C.DoMulti(ctx, index.Commands(s.C, UnfollowWrites(follower, followee))...))
		return err == nil, s.Wrap("maintenance: end a follow of an account that is gone", err)
	}
	return true, nil
}

// completeSides writes followee's followers and the graph as the follow
// of followee by follower is (following) or is not, replicated, and
// forgets follower's suggestions; a follower entered in the followers
// anew notifies followee, as the follow would have. The set of users
// followed is left alone: it is the truth.
func (s *Store) completeSides(ctx context.Context, follower, followee int64, following bool) error {
	b := s.C.B()
	op := "ZREM"
	cmds := rueidis.Commands{b.Zrem().Key(schema.Followers(followee)).Member(kernel.ID(follower)).Build()}
	if following {
		op = "ZADD"
		cmds[0] = b.Zadd().Key(schema.Followers(followee)).Nx().ScoreMember().ScoreMember(float64(time.Now().Unix()), kernel.ID(follower)).Build()
	}
	cmds = append(cmds, b.Del().Key(schema.Suggestions(follower)).Build())
	cmds = append(cmds, index.Commands(s.C, index.EdgeWrites(op, follower, schema.RelFollows, followee))...)
	res := s.Replicated(ctx, func() rueidis.Commands { return cmds },
		schema.Followers(followee), schema.Suggestions(follower), schema.Graph(follower), schema.Graph(followee))
	if err := redisconn.FirstErr(res); err != nil {
		return s.Wrap("maintenance: complete a follow", err)
	}
	if added, _ := res[0].AsInt64(); following && added == 1 {
		note := kernel.Notified{User: followee, Note: schema.Note(schema.NoteFollow, follower, 0), At: time.Now().UnixMilli()}
		if err := redisconn.FirstErr(s.C.DoMulti(ctx, index.NotifyCmds(s.C, note.User, note.Note, note.At)...)); err != nil {
			return s.Wrap("maintenance: notify a follow", err)
		}
		s.Push(ctx, note)
	}
	return nil
}
