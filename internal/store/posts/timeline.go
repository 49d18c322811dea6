package posts

import (
	"cmp"
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// fetchFunc returns up to want post ids for cursor c, in descending order:
// the ones just older than c.Before (or the newest), or the ones just
// newer than c.After.
type fetchFunc func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error)

// keepFunc returns the posts of the last fetch that a page shows (nil:
// all of them).
type keepFunc func(ctx context.Context, posts []retwis.Post) ([]retwis.Post, error)

// maxRounds bounds how often a page asks its source for more ids when some
// of the posts it got were deleted meanwhile.
const maxRounds = 4

// source is the index a page's post ids come from, so that the ids of
// posts found gone are taken out of it (read repair): a sorted set of
// post ids, or a list if list; no key for none.
type source struct {
	key  string
	list bool
}

// reader is who reads posts, and where, for what they do not see
// (retwis.Hidden). The zero reader is a visitor logged out, reading a
// timeline.
type reader struct {
	id    int64 // the viewer; 0: logged out
	where retwis.Where
	all   bool // the posts themselves are at stake (a deletion, a replay): nothing is hidden
}

// visible returns the posts of posts that rd sees, given hidden.
func (rd reader) visible(posts []retwis.Post, hidden retwis.Hidden) []retwis.Post {
	if rd.all {
		return posts
	}
	return hidden.Posts(posts, rd.where)
}

// collect builds a page of n posts from fetch, for rd, whose authors' names are
// read unless known. Deleted posts, and those keep leaves out, are
// skipped, and so are those rd does not see; the next ones fill in, so pages stay full; the ids of
// deleted posts are taken out of from. Posts that cannot be read right
// now are counted in the page's Missing, and not filled in: asking a
// failing node again would only make the page slower.
func (s *Store) collect(ctx context.Context, rd reader, c retwis.Cursor, n int, from source, fetch fetchFunc, keep keepFunc, known ...retwis.User) (retwis.Page, error) {
	var posts []retwis.Post
	missing := 0
	cur, want := c, n+1 // one more than a page tells whether more follow
	for range maxRounds {
		ids, err := fetch(ctx, cur, want)
		if err != nil {
			return retwis.Page{}, err
		}
		found, hidden, unread, err := s.posts(ctx, rd, ids, known...)
		if err == nil && unread == 0 && len(found) < len(ids) {
			s.forgetGone(ctx, from, ids, found)
		}
		found = rd.visible(found, hidden)
		if err == nil && keep != nil {
			found, err = keep(ctx, found)
		}
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

// forgetGone takes out of from the ids that posts did not find: their
// posts are gone (posts reads an id that looks gone from the master
// again, so a replica or cache that lags is not taken at its word).
// Failing, it only logs: the next reader tries again, and `retwis
// check` finds what is left.
func (s *Store) forgetGone(ctx context.Context, from source, ids []int64, found []retwis.Post) {
	if from.key == "" {
		return
	}
	b := s.C.B()
	var cmds rueidis.Commands
	for _, pid := range ids {
		if slices.ContainsFunc(found, func(p retwis.Post) bool { return p.ID == pid }) {
			continue
		}
		if from.list {
			cmds = append(cmds, b.Lrem().Key(from.key).Count(0).Element(kernel.ID(pid)).Build())
		} else {
			cmds = append(cmds, b.Zrem().Key(from.key).Member(kernel.ID(pid)).Build())
		}
	}
	s.Written.Add(from.key)
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)); err != nil {
		s.Log.Warn("ids of deleted posts stay in an index", "key", from.key, "err", err)
	}
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
// the same at any depth. A first page is read through the client-side
// cache, in one call with the counts and the follow state, so a warm one
// makes no round trip.
func (s *Store) Profile(ctx context.Context, viewer int64, user retwis.User, c retwis.Cursor, n int) (retwis.Profile, error) {
	rd := reader{id: viewer, where: retwis.InConversation}
	b := s.C.B()
	reads := append(s.countCmds(user.ID),
		rueidis.CT(b.Zscore().Key(schema.Following(viewer)).Member(kernel.ID(user.ID)).Cache(), s.Opts.CacheTTL),
		s.AboutCmd(user.ID),
		rueidis.CT(b.Zscore().Key(schema.Blocks(viewer)).Member(kernel.ID(user.ID)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zscore().Key(schema.Mutes(viewer)).Member(kernel.ID(user.ID)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Hget().Key(schema.User(user.ID)).Field(schema.FieldSuspended).Cache(), s.Opts.CacheTTL))
	first := c == (retwis.Cursor{})
	if first {
		reads = append(reads, rueidis.CT(b.Zrevrange().Key(schema.UserPosts(user.ID)).Start(0).Stop(int64(n)).Cache(), s.Opts.CacheTTL))
	}
	res := s.CachedMulti(ctx, reads...)
	prof := retwis.Profile{User: user}
	var err error
	if prof.Counts, err = s.parseCounts(res); err != nil {
		return prof, err
	}
	for i, to := range map[int]*bool{2: &prof.Followed, 4: &prof.Blocked, 5: &prof.Muted, 6: &prof.Suspended} {
		r := res[i]
		if err := r.Error(); err != nil && !rueidis.IsRedisNil(err) {
			return prof, s.Wrap("profile: relation", err)
		}
		*to = r.Error() == nil
	}
	if prof.DisplayName, prof.Bio, err = s.ParseAbout(res[3]); err != nil {
		return prof, err
	}
	prof.Page, err = s.collect(ctx, rd, c, n, source{key: schema.UserPosts(user.ID)}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		if first { // the first fetch: read above, n+1 ids
			first = false
			ids, err := res[7].AsIntSlice()
			return ids, s.Wrap("profile", err)
		}
		ids, err := s.indexPage(ctx, schema.UserPosts(user.ID), c, want)
		return ids, s.Wrap("profile", err)
	}, nil, user)
	return prof, err
}

// indexPage reads up to want ids, newest first, of the index key (post
// ids scored by id) for cursor c; a first page through the client-side
// cache.
func (s *Store) indexPage(ctx context.Context, key string, c retwis.Cursor, want int) ([]int64, error) {
	if c == (retwis.Cursor{}) { // a first page, the one most read
		cmd := s.C.B().Zrevrange().Key(key).Start(0).Stop(int64(want - 1)).Cache()
		return s.Cached(ctx, cmd, s.Opts.CacheTTL).AsIntSlice()
	}
	ids, err := s.C.Do(ctx, s.indexCmd(key, c, want)).AsIntSlice()
	if c.After > 0 {
		slices.Reverse(ids)
	}
	return ids, err
}

// indexCmd reads up to want ids of the index key (post ids scored by id)
// for cursor c: descending, except for c.After, where it is ascending
// from the cursor.
func (s *Store) indexCmd(key string, c retwis.Cursor, want int) rueidis.Completed {
	b := s.C.B()
	switch {
	case c.After > 0:
		return b.Zrangebyscore().Key(key).Min("("+kernel.ID(c.After)).Max("+inf").Limit(0, int64(want)).Build()
	case c.Before > 0:
		return b.Zrevrangebyscore().Key(key).Max("("+kernel.ID(c.Before)).Min("-inf").Limit(0, int64(want)).Build()
	}
	return b.Zrevrange().Key(key).Start(0).Stop(int64(want - 1)).Build()
}

// GlobalTimeline returns a page of the global timeline, as viewer (0:
// logged out) sees it. A first page is read through the client-side
// cache, so a warm one makes no round trip.
func (s *Store) GlobalTimeline(ctx context.Context, viewer int64, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.collect(ctx, reader{id: viewer}, c, n, source{key: schema.Timeline, list: true}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		if c == (retwis.Cursor{}) {
			cmd := s.C.B().Lrange().Key(schema.Timeline).Start(0).Stop(int64(want - 1)).Cache()
			ids, err := s.Cached(ctx, cmd, s.Opts.CacheTTL).AsIntSlice()
			return ids, s.Wrap("global timeline", err)
		}
		ids, _, err := s.page(ctx, []string{schema.Timeline}, "", c, want)
		return ids, s.Wrap("global timeline", err)
	}, nil)
}

// countCmds read uid's counts through the client-side cache.
func (s *Store) countCmds(uid int64) []rueidis.CacheableTTL {
	b := s.C.B()
	return []rueidis.CacheableTTL{
		rueidis.CT(b.Zcard().Key(schema.Followers(uid)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zcard().Key(schema.Following(uid)).Cache(), s.Opts.CacheTTL),
	}
}

// parseCounts reads the replies to countCmds.
func (s *Store) parseCounts(res []rueidis.RedisResult) (retwis.Counts, error) {
	followers, err := res[0].AsInt64()
	if err != nil {
		return retwis.Counts{}, s.Wrap("counts", err)
	}
	following, err := res[1].AsInt64()
	return retwis.Counts{Followers: followers, Following: following}, s.Wrap("counts", err)
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
