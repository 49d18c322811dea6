package posts

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// HomeTimeline returns a page of uid's home timeline, with uid's counts.
//
// The page merges two sources, both read by cursor:
//   - uid's timeline: the list posts:{uid}, filled by fanout on write,
//     and below it the archive of its older entries, kept in chunks;
//   - the own posts of followed celebrities, which are not fanned out.
//
// A first page is read through the client-side cache (the list, the
// counts, the followed celebrities), so a warm one makes no round trip
// to Redis: Redis invalidates the copies when a delivery, a post or a
// follow changes them. Any other page costs one script call, bisections
// and ranges of one list or chunk, whatever its depth and however many
// users uid follows. Posts read from the archive whose author uid no
// longer follows are left out (unfollowing takes them off the list only).
//
// Reading the home timeline records that uid is active, and rebuilds it
// before reading it if uid returns from a long absence (see markSeen).
func (s *Store) HomeTimeline(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, retwis.Counts, error) {
	return s.HomeTimelineAlong(ctx, uid, c, n, Along{})
}

// HomeTimelineAlong is HomeTimeline with a page's other reads (see
// Along).
func (s *Store) HomeTimelineAlong(ctx context.Context, uid int64, c retwis.Cursor, n int, a Along) (retwis.Page, retwis.Counts, error) {
	var counts retwis.Counts
	// uid's account is read with the first reads, for markSeen: the
	// page's reads do not wait for it, and in the rare page that rebuilds
	// the home timeline, the first read of the list is read again.
	rd, read, err := s.begin(ctx, reader{id: uid}, a, append(s.homeReads(uid, c, n+1, true), s.AccountRead(uid))...)
	if err != nil {
		return retwis.Page{}, counts, err
	}
	own := read.Replies()
	own, acct := own[:len(own)-1], own[len(own)-1]
	first := !s.markSeen(ctx, uid, acct) // the first fetch: read above, with the counts
	if !first {
		if counts, err = s.parseCounts(own[len(own)-2:]); err != nil {
			return retwis.Page{}, counts, err
		}
	}
	archived := false // the last fetch read from the archive
	page, err := s.collect(ctx, rd, c, n, source{key: schema.Home(uid), list: true}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		res, countsTo := own, &counts
		if !first {
			res, countsTo = s.CachedMulti(ctx, s.homeReads(uid, c, want, false)...), nil
		}
		first = false
		ids, fromArchive, err := s.homeIDs(ctx, uid, c, want, res, countsTo)
		archived = fromArchive
		return ids, err
	}, func(ctx context.Context, posts []retwis.Post) ([]retwis.Post, error) {
		if !archived {
			return posts, nil
		}
		return s.followedOnly(ctx, uid, posts)
	})
	return page, counts, err
}

// homeReads are the cached reads of a fetch of uid's home timeline for
// cursor c (see homeIDs): the followed celebrities, the first want ids
// of the list for a first page, and with counts, uid's counts.
func (s *Store) homeReads(uid int64, c retwis.Cursor, want int, counts bool) []rueidis.CacheableTTL {
	b := s.C.B()
	reads := []rueidis.CacheableTTL{rueidis.CT(b.Smembers().Key(schema.FollowedCelebrities(uid)).Cache(), s.Opts.CacheTTL)}
	if c == (retwis.Cursor{}) {
		reads = append(reads, rueidis.CT(b.Lrange().Key(schema.Home(uid)).Start(0).Stop(int64(want-1)).Cache(), s.Opts.CacheTTL))
	}
	if counts {
		reads = append(reads, s.countCmds(uid)...)
	}
	return reads
}

// homeIDs is the fetchFunc of a home timeline, given the replies res to
// its homeReads; if counts is not nil, they were read, into it. It
// reports whether any of the ids came from the archive.
func (s *Store) homeIDs(ctx context.Context, uid int64, c retwis.Cursor, want int, res []rueidis.RedisResult, counts *retwis.Counts) ([]int64, bool, error) {
	first := c == (retwis.Cursor{})
	celebrities, err := res[0].AsIntSlice()
	if err != nil {
		return nil, false, s.Wrap("followed celebrities", err)
	}
	if counts != nil {
		if *counts, err = s.parseCounts(res[len(res)-2:]); err != nil {
			return nil, false, err
		}
	}
	var ids []int64
	fromArchive := false
	if first {
		if ids, err = res[1].AsIntSlice(); err != nil {
			return nil, false, s.Wrap("home timeline", err)
		}
	}
	if !first || len(ids) < want { // a deeper page, or a short list: the archive may follow
		if ids, fromArchive, err = s.page(ctx, []string{schema.Home(uid), schema.Archive(uid)}, schema.ArchivePrefix(uid), c, want); err != nil {
			return nil, false, s.Wrap("home timeline", err)
		}
	}
	if len(celebrities) == 0 {
		return ids, fromArchive, nil
	}
	ids, err = s.mergeIndexes(ctx, ids, celebrities, c, want)
	return ids, fromArchive, err
}

// page reads up to want ids of a timeline for cursor c with kernel.PageIDs:
// keys are its list and, for a home timeline, its archive index, whose
// chunks' names start with prefix. It reports whether any came from the
// archive.
func (s *Store) page(ctx context.Context, keys []string, prefix string, c retwis.Cursor, want int) ([]int64, bool, error) {
	res := s.Pipeline(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.PageIDs.Cmd(s.C, keys, prefix, kernel.ID(c.Before), kernel.ID(c.After), strconv.Itoa(want))}
	})
	vals, err := res[0].ToArray()
	if err != nil {
		return nil, false, err
	}
	if len(vals) != 2 {
		return nil, false, kernel.ErrScriptReply
	}
	archived, err := vals[0].AsInt64()
	if err != nil {
		return nil, false, err
	}
	ids, err := vals[1].AsIntSlice()
	return ids, archived > 0, err
}

// followedOnly returns posts without those whose author uid does not
// follow (uid's own stay), reading uid's following set through the
// client-side cache.
func (s *Store) followedOnly(ctx context.Context, uid int64, posts []retwis.Post) ([]retwis.Post, error) {
	authors := make([]int64, 0, len(posts))
	for _, p := range posts {
		if p.AuthorID != uid {
			authors = append(authors, p.AuthorID)
		}
	}
	followed, err := s.followedAmong(ctx, uid, authors)
	if err != nil {
		return nil, err
	}
	kept := posts[:0]
	for _, p := range posts {
		if p.AuthorID == uid || followed[p.AuthorID] {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// followedAmong returns which of authors uid follows, in one read of
// uid's following set through the client-side cache (none without
// authors).
func (s *Store) followedAmong(ctx context.Context, uid int64, authors []int64) (map[int64]bool, error) {
	var members []string
	seen := map[int64]bool{}
	for _, a := range authors {
		if !seen[a] {
			seen[a] = true
			members = append(members, kernel.ID(a))
		}
	}
	followed := map[int64]bool{}
	if len(members) == 0 {
		return followed, nil
	}
	scores, err := s.Cached(ctx, s.C.B().Zmscore().Key(schema.Following(uid)).Member(members...).Cache(), s.Opts.CacheTTL).ToArray()
	if err != nil {
		return nil, s.Wrap("followed authors", err)
	}
	for i, sc := range scores {
		if !sc.IsNil() {
			a, _ := strconv.ParseInt(members[i], 10, 64)
			followed[a] = true
		}
	}
	return followed, nil
}

// mergeIndexes merges ids with the own-post indexes of authors, all
// read for cursor c, into the want ids the page needs.
func (s *Store) mergeIndexes(ctx context.Context, ids, authors []int64, c retwis.Cursor, want int) ([]int64, error) {
	cmds := make(rueidis.Commands, len(authors))
	for i, a := range authors {
		cmds[i] = s.indexCmd(schema.UserPosts(a), c, want)
	}
	lists := [][]int64{ids}
	for _, r := range s.C.DoMulti(ctx, cmds...) {
		l, err := r.AsIntSlice()
		if err != nil {
			return nil, s.Wrap("home timeline: indexes", err)
		}
		lists = append(lists, l)
	}
	return mergeDesc(lists, want, c.After > 0), nil
}

// following returns the ids uid follows.
func (s *Store) following(ctx context.Context, uid int64) ([]int64, error) {
	ids, err := s.C.Do(ctx, s.C.B().Zrange().Key(schema.Following(uid)).Min("0").Max("-1").Build()).AsIntSlice()
	return ids, s.Wrap("following", err)
}
