package posts

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// marks are the reads of the interaction state of a page of posts, sent
// with the posts (see posts): each post's counts and, for a reader
// logged in, the reader's marks on them, all through the client-side
// cache, so that a warm page reads them without a round trip.
type marks struct {
	counts kernel.Slot // HMGET of each post's counts
	mine   kernel.Slot // ZMSCORE of the reader's favourites, bookmarks and pins; none logged out
}

// startMarks adds to b the reads of the interaction state of posts pids
// as rd sees them: none for a reader of all (a deletion, a replay).
func (s *Store) startMarks(rd reader, pids []int64, b *kernel.Batch) marks {
	if rd.all || len(pids) == 0 {
		return marks{}
	}
	cb := s.C.B()
	counts := make([]rueidis.CacheableTTL, len(pids))
	for i, pid := range pids {
		counts[i] = rueidis.CT(cb.Hmget().Key(schema.Counts(pid)).Field(schema.FieldFavourites).Cache(), s.Opts.CacheTTL)
	}
	m := marks{counts: b.Add(counts...)}
	if rd.id == 0 {
		return m
	}
	members := kernel.IDs(pids)
	var mine []rueidis.CacheableTTL
	for _, key := range []string{schema.Favourites(rd.id), schema.Bookmarks(rd.id), schema.Pins(rd.id)} {
		mine = append(mine, rueidis.CT(cb.Zmscore().Key(key).Member(members...).Cache(), s.Opts.CacheTTL))
	}
	m.mine = b.Add(mine...)
	return m
}

// apply sets the interaction state of p, the post at i of the ids read,
// from the replies; a reply that cannot be read leaves it at zero.
func (m marks) apply(p *retwis.Post, i int) {
	if counts := m.counts.Replies(); i < len(counts) {
		if vals, err := counts[i].ToArray(); err == nil && len(vals) > 0 {
			if n, err := vals[0].AsInt64(); err == nil {
				p.Favourites = n
			}
		}
	}
	mine := m.mine.Replies()
	for k, set := range []*bool{&p.Favourited, &p.Bookmarked, &p.Pinned} {
		if k < len(mine) {
			if scores, err := mine[k].ToArray(); err == nil && i < len(scores) {
				*set = !scores[i].IsNil()
			}
		}
	}
}

// MarkedPosts returns a page of the posts in key, a user's marks (a
// sorted set of post ids by when they were marked: favourites,
// bookmarks, pins), newest mark first, as viewer sees them: the cursor
// is a post of the set, and a page is read by the rank of its mark (see
// kernel.RankPage). Posts deleted since are skipped, and their marks
// removed.
func (s *Store) MarkedPosts(ctx context.Context, viewer int64, key string, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.collect(ctx, reader{id: viewer, where: retwis.InConversation}, c, n, source{key: key}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.markPage(ctx, key, c, want)
		return ids, s.Wrap("marked posts", err)
	}, nil)
}

// markPage returns the ids of up to want posts of the sorted set key
// next to the cursor's, newest mark first.
func (s *Store) markPage(ctx context.Context, key string, c retwis.Cursor, want int) ([]int64, error) {
	if c == (retwis.Cursor{}) {
		return s.C.Do(ctx, s.C.B().Zrevrange().Key(key).Start(0).Stop(int64(want-1)).Build()).AsIntSlice()
	}
	member, dir := c.Before, "before"
	if c.After > 0 {
		member, dir = c.After, "after"
	}
	res, err := kernel.RankPage.Exec(ctx, s.C, []string{key}, kernel.ID(member), strconv.Itoa(want), dir).ToArray()
	if err != nil || len(res) != 3 {
		return nil, err
	}
	page, err := res[2].AsStrSlice()
	if err != nil {
		return nil, err
	}
	var ids []int64
	for i := 0; i+1 < len(page); i += 2 { // member, score
		if pid, err := strconv.ParseInt(page[i], 10, 64); err == nil {
			ids = append(ids, pid)
		}
	}
	return ids, nil
}
