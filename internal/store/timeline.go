package store

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// fetchFunc returns up to want post ids for cursor c, in descending order:
// the ones just older than c.Before (or the newest), or the ones just
// newer than c.After.
type fetchFunc func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error)

// maxRounds bounds how often a page asks its source for more ids when some
// of the posts it got were deleted meanwhile.
const maxRounds = 4

// collect builds a page of n posts from fetch. Deleted posts are skipped
// and the next ones fill in, so pages stay full. Posts that cannot be
// read right now are counted in the page's Missing, and not filled in:
// asking a failing node again would only make the page slower.
func (s *Store) collect(ctx context.Context, c retwis.Cursor, n int, fetch fetchFunc) (retwis.Page, error) {
	var posts []retwis.Post
	missing := 0
	cur, want := c, n+1 // one more than a page tells whether more follow
	for range maxRounds {
		ids, err := fetch(ctx, cur, want)
		if err != nil {
			return retwis.Page{}, err
		}
		found, unread, err := s.posts(ctx, ids)
		if err != nil {
			return retwis.Page{}, err
		}
		missing += unread
		if cur.After > 0 {
			posts = append(found, posts...)
		} else {
			posts = append(posts, found...)
		}
		if len(ids) < want || len(posts) >= n+1 || missing > 0 {
			break
		}
		if cur.After > 0 {
			cur = retwis.Cursor{After: ids[0]}
		} else {
			cur = retwis.Cursor{Before: ids[len(ids)-1]}
		}
		want = n + 1 - len(posts)
	}
	p := pageOf(posts, c, n)
	p.Missing = missing
	return p, nil
}

// pageOf cuts the n+1 posts gathered for cursor c down to a page of n and
// says which neighbours exist.
func pageOf(posts []retwis.Post, c retwis.Cursor, n int) retwis.Page {
	if c.After > 0 {
		p := retwis.Page{Newer: len(posts) > n, Older: true}
		if p.Newer {
			posts = posts[len(posts)-n:]
		}
		p.Posts = posts
		return p
	}
	p := retwis.Page{Older: len(posts) > n, Newer: c.Before > 0}
	if p.Older {
		posts = posts[:n]
	}
	p.Posts = posts
	return p
}

// Profile returns the profile of user as seen by viewer (0 when logged
// out): a page of the user's own posts, counts, and whether the viewer
// follows the user. The own-post index is a sorted set, so a page costs
// the same at any depth.
func (s *Store) Profile(ctx context.Context, viewer int64, user retwis.User, c retwis.Cursor, n int) (retwis.Profile, error) {
	b := s.c.B()
	res := s.c.DoMulti(ctx, append(s.countCmds(user.ID),
		b.Zscore().Key(schema.Following(viewer)).Member(id(user.ID)).Build())...)
	prof := retwis.Profile{User: user}
	var err error
	if prof.Counts, err = s.parseCounts(res); err != nil {
		return prof, err
	}
	if err := res[2].Error(); err != nil && !rueidis.IsRedisNil(err) {
		return prof, s.wrap("profile: following", err)
	}
	prof.Followed = res[2].Error() == nil
	prof.Page, err = s.collect(ctx, c, n, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.c.Do(ctx, s.indexCmd(user.ID, c, want)).AsIntSlice()
		if c.After > 0 {
			slices.Reverse(ids)
		}
		return ids, s.wrap("profile", err)
	})
	return prof, err
}

// indexCmd reads up to want ids of uid's own-post index for cursor c:
// descending, except for c.After, where it is ascending from the cursor.
func (s *Store) indexCmd(uid int64, c retwis.Cursor, want int) rueidis.Completed {
	b := s.c.B()
	key := schema.UserPosts(uid)
	switch {
	case c.After > 0:
		return b.Zrangebyscore().Key(key).Min("("+id(c.After)).Max("+inf").Limit(0, int64(want)).Build()
	case c.Before > 0:
		return b.Zrevrangebyscore().Key(key).Max("("+id(c.Before)).Min("-inf").Limit(0, int64(want)).Build()
	}
	return b.Zrevrange().Key(key).Start(0).Stop(int64(want - 1)).Build()
}

// listCmd reads up to want ids of a timeline list for cursor c. Lists
// are kept in descending id order, so a cursor is found by position.
func (s *Store) listCmd(key string, c retwis.Cursor, want, limit int) rueidis.Completed {
	if c.Before == 0 && c.After == 0 {
		return s.c.B().Lrange().Key(key).Start(0).Stop(int64(want - 1)).Build()
	}
	return pageIDs.cmd(s.c, []string{key}, id(c.Before), id(c.After), strconv.Itoa(want), strconv.Itoa(limit))
}

// GlobalTimeline returns a page of the global timeline.
func (s *Store) GlobalTimeline(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.collect(ctx, c, n, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		res := s.pipeline(ctx, func() rueidis.Commands {
			return rueidis.Commands{s.listCmd(schema.Timeline, c, want, schema.TimelineCap)}
		})
		ids, err := res[0].AsIntSlice()
		return ids, s.wrap("global timeline", err)
	})
}

func (s *Store) countCmds(uid int64) rueidis.Commands {
	b := s.c.B()
	return rueidis.Commands{
		b.Zcard().Key(schema.Followers(uid)).Build(),
		b.Zcard().Key(schema.Following(uid)).Build(),
	}
}

func (s *Store) parseCounts(res []rueidis.RedisResult) (retwis.Counts, error) {
	followers, err := res[0].AsInt64()
	if err != nil {
		return retwis.Counts{}, s.wrap("counts", err)
	}
	following, err := res[1].AsInt64()
	return retwis.Counts{Followers: followers, Following: following}, s.wrap("counts", err)
}

// mergeDesc merges id lists into one descending list without duplicates
// and keeps want of them: the newest, or for an After cursor the ones
// closest to it (the oldest).
func mergeDesc(lists [][]int64, want int, after bool) []int64 {
	var all []int64
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b int64) int { return cmp.Compare(b, a) })
	all = slices.Compact(all)
	if len(all) > want {
		if after {
			all = all[len(all)-want:]
		} else {
			all = all[:want]
		}
	}
	return all
}
