package posts

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// markSeen records that uid, who is reading their home timeline, is
// active, given the reply to uid's AccountRead: at most once per
// resolution, so that busy users do not cost a write per page. A user
// returning after InactiveAfter had fanout skip them, so their home
// timeline is rebuilt before the page reads it; markSeen reports whether
// it was. The need for a rebuild is recorded in the user hash in the same
// write as the time seen, and cleared only once a rebuild has succeeded:
// a failed rebuild is tried again at the next page. None of this is what
// the page is for, so a failure is logged and the page goes on with the
// timeline as it is (a Redis that is full still serves pages).
func (s *Store) markSeen(ctx context.Context, uid int64, account rueidis.RedisResult) (rebuilt bool) {
	rebuilt, err := s.trackActivity(ctx, uid, account)
	if err != nil && ctx.Err() == nil {
		s.Log.Warn("could not record a visit or rebuild the home timeline; trying again at the next page",
			"user", uid, "err", err)
	}
	return rebuilt
}

// trackActivity does the work of markSeen.
func (s *Store) trackActivity(ctx context.Context, uid int64, account rueidis.RedisResult) (rebuilt bool, err error) {
	acct, err := s.ParseAccount(account)
	if err != nil {
		return false, err
	}
	now := time.Now().Unix()
	resolution := int64(min(time.Hour, s.Opts.InactiveAfter/10) / time.Second)
	returning := acct.Seen > 0 && now-acct.Seen > int64(s.Opts.InactiveAfter/time.Second)
	if now-acct.Seen >= resolution {
		// Marked active first, so fanout stops skipping the user before
		// the rebuild reads the authors' posts: a post published in
		// between is then either read by the rebuild or delivered.
		err := redisconn.FirstErr(s.C.DoMulti(ctx, s.SeenCmds(uid, now, returning)...))
		if err != nil {
			return false, s.Wrap("mark seen", err)
		}
	}
	if !returning && !acct.Rebuild {
		return false, nil
	}
	if err := s.RebuildHome(ctx, uid); err != nil {
		return false, err
	}
	err = s.C.Do(ctx, s.C.B().Hdel().Key(schema.User(uid)).Field(schema.FieldRebuild).Build()).Error()
	return true, s.Wrap("mark seen: rebuilt", err)
}

// RebuildHome rebuilds uid's home timeline from the own-post indexes of
// the users uid follows (and uid's own): their newest HomeCap posts are
// merged into the list (not replacing it, so that a delivery made while
// the indexes were read is kept, and what the timeline held before the
// absence stays below them).
func (s *Store) RebuildHome(ctx context.Context, uid int64) error {
	s.Written.Add(schema.Home(uid)) // the page that asked for it reads it next
	authors, err := s.following(ctx, uid)
	if err != nil {
		return err
	}
	ids, err := s.NewestOf(ctx, append(authors, uid), s.Opts.HomeCap)
	if err != nil {
		return err
	}
	return s.mergeHome(ctx, uid, ids, "rebuild home")
}

// NewestOf returns the n newest post ids written by any of authors. It
// reads the authors' indexes in rounds: a small chunk from each, then
// more only from authors whose chunk ran out while still newer than the
// n-th newest id seen so far. Anything not read is older than that, so
// the result is exact, and a user following thousands costs a few rounds
// of small reads rather than thousands of full ones.
func (s *Store) NewestOf(ctx context.Context, authors []int64, n int) ([]int64, error) {
	chunk := int64(max(20, 2*n/len(authors)))
	fetched := make([][]int64, len(authors))
	pending := make([]int, len(authors)) // authors to read from this round
	for i := range pending {
		pending[i] = i
	}
	var best []int64
	for len(pending) > 0 {
		cmds := make(rueidis.Commands, len(pending))
		for k, i := range pending {
			upper := "+inf"
			if f := fetched[i]; len(f) > 0 {
				upper = "(" + kernel.ID(f[len(f)-1])
			}
			cmds[k] = s.C.B().Zrevrangebyscore().Key(schema.UserPosts(authors[i])).Max(upper).Min("-inf").Limit(0, chunk).Build()
		}
		var more []int
		for k, r := range s.C.DoMulti(ctx, cmds...) {
			ids, err := r.AsIntSlice()
			if err != nil {
				return nil, s.Wrap("newest posts", err)
			}
			fetched[pending[k]] = append(fetched[pending[k]], ids...)
			if int64(len(ids)) == chunk {
				more = append(more, pending[k])
			}
		}
		best = mergeDesc(fetched, n, false)
		cutoff := int64(0)
		if len(best) == n {
			cutoff = best[n-1]
		}
		pending = slices.DeleteFunc(more, func(i int) bool {
			f := fetched[i]
			return f[len(f)-1] < cutoff
		})
	}
	return best, nil
}

// mergeHome merges ids (descending) into uid's home timeline.
func (s *Store) mergeHome(ctx context.Context, uid int64, ids []int64, op string) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]string, 0, len(ids)+3)
	args = append(args, strconv.Itoa(s.Opts.HomeCap), strconv.Itoa(s.Opts.ArchiveChunk), schema.ArchivePrefix(uid))
	for _, p := range ids {
		args = append(args, kernel.ID(p))
	}
	return s.Wrap(op, kernel.MergeIDs.Exec(ctx, s.C, []string{schema.Home(uid), schema.Archive(uid)}, args...).Error())
}

// Backfill merges followee's newest posts (as many as a list keeps) into
// follower's home timeline; those older than the timeline's list, once
// it has an archive, are left out.
func (s *Store) Backfill(ctx context.Context, follower, followee int64) error {
	ids, err := s.C.Do(ctx, s.C.B().Zrevrange().Key(schema.UserPosts(followee)).
		Start(0).Stop(int64(s.Opts.HomeCap-1)).Build()).AsIntSlice()
	if err != nil {
		return s.Wrap("follow: backfill", err)
	}
	return s.mergeHome(ctx, follower, ids, "follow: backfill")
}
