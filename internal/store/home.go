package store

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// HomeTimeline returns a page of uid's home timeline, with uid's counts.
//
// The page merges three sources, all read by cursor:
//   - the capped list posts:<uid>, filled by fanout on write;
//   - the own posts of followed celebrities, which are not fanned out;
//   - once the page reaches below the list (deep pages, or a list that
//     is short), the own-post indexes of everybody uid follows, so paging
//     goes on to the beginning of history.
//
// The list is complete down to its oldest entry (backfills and rebuilds
// keep it so), which is what makes the merge exact.
//
// Reading the home timeline records that uid is active, and first
// rebuilds it if uid returns from a long absence (see markSeen).
func (s *Store) HomeTimeline(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, retwis.Counts, error) {
	s.markSeen(ctx, uid)
	var counts retwis.Counts
	countsTo := &counts // the first fetch reads the counts in the same pipeline
	page, err := s.collect(ctx, c, n, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.homeIDs(ctx, uid, c, want, countsTo)
		countsTo = nil
		return ids, err
	})
	return page, counts, err
}

// homeIDs is the fetchFunc of a home timeline; if counts is not nil, it
// also reads uid's counts into it.
func (s *Store) homeIDs(ctx context.Context, uid int64, c retwis.Cursor, want int, counts *retwis.Counts) ([]int64, error) {
	authors, err := s.followedCelebrities(ctx, uid)
	if err != nil {
		return nil, err
	}
	b := s.c.B()
	res := s.pipeline(ctx, func() rueidis.Commands {
		cmds := rueidis.Commands{
			s.listCmd(schema.Home(uid), c, want, s.opts.HomeCap),
			b.Lindex().Key(schema.Home(uid)).Index(-1).Build(),
		}
		if counts != nil {
			cmds = append(cmds, s.countCmds(uid)...)
		}
		return cmds
	})
	if counts != nil {
		if *counts, err = s.parseCounts(res[len(res)-2:]); err != nil {
			return nil, err
		}
	}
	listIDs, err := res[0].AsIntSlice()
	if err != nil {
		return nil, s.wrap("home timeline", err)
	}
	if s.belowList(res[1], listIDs, c, want) {
		// The page reaches past the list: read every followed author.
		if authors, err = s.following(ctx, uid); err != nil {
			return nil, err
		}
		authors = append(authors, uid)
	}
	if len(authors) == 0 {
		return listIDs, nil
	}
	return s.mergeIndexes(ctx, listIDs, authors, c, want)
}

// belowList reports whether a page for cursor c needs posts older than
// the list's oldest entry (tail).
func (s *Store) belowList(tail rueidis.RedisResult, listIDs []int64, c retwis.Cursor, want int) bool {
	if c.After == 0 {
		return len(listIDs) < want
	}
	last, err := tail.AsInt64()
	return err != nil || last > c.After
}

// mergeIndexes merges listIDs with the own-post indexes of authors, all
// read for cursor c, into the want ids the page needs.
func (s *Store) mergeIndexes(ctx context.Context, listIDs, authors []int64, c retwis.Cursor, want int) ([]int64, error) {
	cmds := make(rueidis.Commands, len(authors))
	for i, a := range authors {
		cmds[i] = s.indexCmd(a, c, want)
	}
	lists := [][]int64{listIDs}
	for _, r := range s.c.DoMulti(ctx, cmds...) {
		ids, err := r.AsIntSlice()
		if err != nil {
			return nil, s.wrap("home timeline: indexes", err)
		}
		lists = append(lists, ids)
	}
	return mergeDesc(lists, want, c.After > 0), nil
}

// following returns the ids uid follows.
func (s *Store) following(ctx context.Context, uid int64) ([]int64, error) {
	ids, err := s.c.Do(ctx, s.c.B().Zrange().Key(schema.Following(uid)).Min("0").Max("-1").Build()).AsIntSlice()
	return ids, s.wrap("following", err)
}

// followedCelebrities returns the celebrities uid follows, whose posts
// are merged at read time instead of fanned out, from the client-side
// cache: the set changes rarely, and Redis invalidates the copy when it
// does.
func (s *Store) followedCelebrities(ctx context.Context, uid int64) ([]int64, error) {
	ids, err := s.cached(ctx, s.c.B().Smembers().Key(schema.FollowedCelebrities(uid)).Cache(), s.opts.CacheTTL).AsIntSlice()
	return ids, s.wrap("followed celebrities", err)
}
