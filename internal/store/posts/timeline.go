package posts

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
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
	// hidden is what the viewer does not see, when read already (with a
	// page's first reads, see begin); nil: read with the posts.
	hidden *retwis.Hidden
	// along holds a page's other reads, to send with the next posts read
	// (the first of a page); nil: none.
	along *kernel.Batch
	// follows holds whether the viewer follows some authors, when read
	// already (a profile's), for the private posts they see.
	follows map[int64]bool
}

// visible returns the posts of posts that rd sees, given hidden: those
// hidden does not hide, of a visibility that shows them to rd
// (retwis.Post.SeenBy). Whether rd follows the authors of the private
// posts by others that do not mention rd is read, for all of them in one
// command through the client-side cache, unless rd knows it.
func (s *Store) visible(ctx context.Context, rd reader, posts []retwis.Post, hidden retwis.Hidden) ([]retwis.Post, error) {
	if rd.all {
		return posts, nil
	}
	posts = hidden.Posts(posts, rd.where)
	var ask []int64
	for _, p := range posts {
		if _, known := rd.follows[p.AuthorID]; p.NeedsFollow(rd.id) && !known {
			ask = append(ask, p.AuthorID)
		}
	}
	follows, err := s.followedAmong(ctx, rd.id, ask)
	if err != nil {
		return nil, err
	}
	maps.Copy(follows, rd.follows)
	kept := posts[:0]
	for _, p := range posts {
		if p.SeenBy(rd.id, follows[p.AuthorID]) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// Along is what a page reads besides its timeline, sent in the
// timeline's own pipelines, so that the page costs the round trips of
// its timeline and no more: First is sent with the timeline's first
// reads, which include what the viewer does not see; Then, called once
// they are read with what the viewer does not see, returns the reads to
// send with the first read of the page's posts (nil: none). The zero
// Along reads nothing more.
type Along struct {
	First *kernel.Batch
	Then  func(ctx context.Context, hidden retwis.Hidden) *kernel.Batch
}

// begin sends a timeline's first reads (own) with a.First and what rd
// does not see, and returns rd knowing it, with the reads of a.Then
// along; read is where own's replies are. Without reads of its own or
// along, it sends nothing: the posts are read with what rd does not see.
func (s *Store) begin(ctx context.Context, rd reader, a Along, own ...rueidis.CacheableTTL) (_ reader, read kernel.Slot, err error) {
	if len(own) == 0 && a.First == nil {
		return rd, read, nil
	}
	first := a.First
	if first == nil {
		first = new(kernel.Batch)
	}
	read = first.Add(own...)
	hiddenRead := first.Add(s.HiddenCmds(rd.id)...)
	s.ReadBatch(ctx, first)
	hidden, err := s.ParseHidden(hiddenRead.Replies())
	if err != nil {
		return rd, read, err
	}
	rd.hidden = &hidden
	if a.Then != nil {
		rd.along = a.Then(ctx, hidden)
	}
	return rd, read, nil
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
		rd.along = nil // sent
		if err == nil && unread == 0 && len(found) < len(ids) {
			s.forgetGone(ctx, from, ids, found)
		}
		if err == nil {
			found, err = s.visible(ctx, rd, found, hidden)
		}
		if err == nil && keep != nil {
			found, err = keep(ctx, found)
		}
		if err != nil {
			return retwis.Page{}, err
		}
		missing += unread
		switch {
		case posts == nil: // the first round, and most often the only one
			posts = found
		case cur.After > 0:
			posts = append(found, posts...)
		default:
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
	return s.ProfileAlong(ctx, viewer, user, c, n, Along{})
}

// ProfileAlong is Profile with a page's other reads (see Along). Given a
// user without a name, it reads the name with the rest (as
// accounts.Store.Usernames does), and fails with an error of kind
// NotFound if there is none.
func (s *Store) ProfileAlong(ctx context.Context, viewer int64, user retwis.User, c retwis.Cursor, n int, a Along) (retwis.Profile, error) {
	prof := retwis.Profile{User: user}
	if a.First == nil {
		a.First = new(kernel.Batch)
	}
	var name accounts.Names
	if user.Username == "" {
		name = s.StartNames([]int64{user.ID}, a.First)
	}
	rd, read, err := s.begin(ctx, reader{id: viewer, where: retwis.InConversation}, a, s.profileReads(viewer, user.ID, c, n+1)...)
	if err != nil {
		return prof, err
	}
	if user.Username == "" {
		names, err := name.Usernames(ctx)
		if err != nil {
			return prof, err
		}
		if prof.User.Username = names[user.ID]; prof.User.Username == "" {
			return prof, retwis.Errorf(retwis.NotFound, "There is no such user.")
		}
	}
	res := read.Replies()
	if prof, err = s.parseProfile(prof, res); err != nil {
		return prof, err
	}
	first := c == (retwis.Cursor{})
	rd.follows = map[int64]bool{user.ID: prof.Followed}
	prof.Page, err = s.collect(ctx, rd, c, n, source{key: schema.UserPosts(user.ID)}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		if first { // the first fetch: read above, n+1 ids
			first = false
			ids, err := res[profileIDsAt].AsIntSlice()
			return ids, s.Wrap("profile", err)
		}
		ids, err := s.indexPage(ctx, schema.UserPosts(user.ID), c, want)
		return ids, s.Wrap("profile", err)
	}, nil, prof.User)
	return prof, err
}

// profileIDsAt is where the first page's ids are among profileReads.
const profileIDsAt = 7

// profileReads are the cached reads of user uid's profile as viewer
// sees it (see parseProfile): the counts, the follow state, the about
// fields, the block and mute state and the suspension, then for a first
// page its want ids.
func (s *Store) profileReads(viewer, uid int64, c retwis.Cursor, want int) []rueidis.CacheableTTL {
	b := s.C.B()
	reads := append(s.countCmds(uid),
		rueidis.CT(b.Zscore().Key(schema.Following(viewer)).Member(kernel.ID(uid)).Cache(), s.Opts.CacheTTL),
		s.AboutCmd(uid),
		rueidis.CT(b.Zscore().Key(schema.Blocks(viewer)).Member(kernel.ID(uid)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zscore().Key(schema.Mutes(viewer)).Member(kernel.ID(uid)).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Hget().Key(schema.User(uid)).Field(schema.FieldSuspended).Cache(), s.Opts.CacheTTL))
	if c == (retwis.Cursor{}) {
		reads = append(reads, rueidis.CT(b.Zrevrange().Key(schema.UserPosts(uid)).Start(0).Stop(int64(want-1)).Cache(), s.Opts.CacheTTL))
	}
	return reads
}

// parseProfile reads the replies to profileReads into prof.
func (s *Store) parseProfile(prof retwis.Profile, res []rueidis.RedisResult) (retwis.Profile, error) {
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
	prof.DisplayName, prof.Bio, err = s.ParseAbout(res[3])
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
	return s.GlobalTimelineAlong(ctx, viewer, c, n, Along{})
}

// GlobalTimelineAlong is GlobalTimeline with a page's other reads (see
// Along).
func (s *Store) GlobalTimelineAlong(ctx context.Context, viewer int64, c retwis.Cursor, n int, a Along) (retwis.Page, error) {
	first := c == (retwis.Cursor{})
	var own []rueidis.CacheableTTL
	if first {
		own = append(own, rueidis.CT(s.C.B().Lrange().Key(schema.Timeline).Start(0).Stop(int64(n)).Cache(), s.Opts.CacheTTL))
	}
	rd, read, err := s.begin(ctx, reader{id: viewer}, a, own...)
	if err != nil {
		return retwis.Page{}, err
	}
	return s.collect(ctx, rd, c, n, source{key: schema.Timeline, list: true}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		var ids []int64
		var err error
		if first { // the first fetch of a first page: read above, n+1 ids
			first = false
			ids, err = read.Replies()[0].AsIntSlice()
		} else {
			ids, _, err = s.page(ctx, []string{schema.Timeline}, "", c, want)
		}
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
