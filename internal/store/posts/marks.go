package posts

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// marks are the reads of the interaction state of a page of posts, sent
// with the posts (see posts): each post's counts and, for a reader
// logged in, the reader's marks on them, all through the client-side
// cache, so that a warm page reads them without a round trip. A post's
// counts are in its own slot, so they are read post by post, unless the
// Store's memo of them knows them (see kernel.Memo: a warm page's counts
// cost a map read each); the reader's marks are in the reader's slot, so
// each kind is read for the whole page in one command (ZMSCORE, HMGET),
// a single lookup of the cache warm; the pins, at most schema.MaxPins,
// are read whole.
type marks struct {
	pids       []int64
	counts     [][2]int64 // each post's favourites and boosts, from the memo or read (settle)
	read       []int      // the posts whose counts are read, by their index in pids
	tokens     []uint64   // the memo's token of each of those
	memo       *kernel.Memo[[2]int64]
	countsRead kernel.Slot // HMGET of the counts of those
	favourites kernel.Slot // ZMSCORE of the page's posts in the reader's favourites; none logged out
	boosts     kernel.Slot // HMGET of the page's posts in the reader's boosts
	bookmarks  kernel.Slot // ZMSCORE, as favourites, in the reader's bookmarks
	pins       kernel.Slot // the reader's pins
}

// startMarks adds to b the reads of the interaction state of posts pids
// as rd sees them: none for a reader of all (a deletion, a replay).
func (s *Store) startMarks(rd reader, pids []int64, b *kernel.Batch) marks {
	if rd.all || len(pids) == 0 {
		return marks{}
	}
	cb, ttl := s.C.B(), s.Opts.CacheTTL
	m := marks{pids: pids, counts: make([][2]int64, len(pids)), memo: s.counts}
	var cmds []rueidis.CacheableTTL
	for i, pid := range pids {
		if counts, token, ok := s.counts.Get(pid); ok {
			m.counts[i] = counts
		} else {
			m.read, m.tokens = append(m.read, i), append(m.tokens, token)
			cmds = append(cmds, rueidis.CT(cb.Hmget().Key(schema.Counts(pid)).Field(schema.FieldFavourites, schema.FieldReblogs).Cache(), ttl))
		}
	}
	m.countsRead = b.Add(cmds...)
	if rd.id == 0 {
		return m
	}
	ids := kernel.IDs(pids)
	m.favourites = b.Add(rueidis.CT(cb.Zmscore().Key(schema.Favourites(rd.id)).Member(ids...).Cache(), ttl))
	m.boosts = b.Add(rueidis.CT(cb.Hmget().Key(schema.Boosts(rd.id)).Field(ids...).Cache(), ttl))
	m.bookmarks = b.Add(rueidis.CT(cb.Zmscore().Key(schema.Bookmarks(rd.id)).Member(ids...).Cache(), ttl))
	m.pins = b.Add(rueidis.CT(cb.Zrange().Key(schema.Pins(rd.id)).Min("0").Max("-1").Cache(), ttl))
	return m
}

// settle takes the counts read, once the batch is, and keeps them in the
// memo; a reply that cannot be read leaves its post's at zero, not kept.
func (m *marks) settle() {
	for k, r := range m.countsRead.Replies() {
		vals, err := r.ToArray()
		if err != nil || len(vals) != 2 {
			continue
		}
		var counts [2]int64
		counts[0], _ = vals[0].AsInt64() // nil: none
		counts[1], _ = vals[1].AsInt64()
		i := m.read[k]
		m.counts[i] = counts
		m.memo.Put(m.pids[i], counts, m.tokens[k])
	}
}

// apply sets the interaction state of p, the post at i of the ids read,
// from the replies (settled); a reply that cannot be read leaves it at
// zero.
func (m marks) apply(p *retwis.Post, i int) {
	if i < len(m.counts) {
		p.Favourites, p.Reblogs = m.counts[i][0], m.counts[i][1]
	}
	p.Favourited = marked(m.favourites, i)
	p.Reblogged = marked(m.boosts, i)
	p.Bookmarked = marked(m.bookmarks, i)
	if pins := m.pins.Replies(); len(pins) == 1 {
		pinned, _ := pins[0].AsStrSlice()
		p.Pinned = slices.Contains(pinned, kernel.ID(p.ID))
	}
}

// marked reports whether the reply of slot, a ZMSCORE or an HMGET of a
// page's posts, holds a value for the post at i.
func marked(slot kernel.Slot, i int) bool {
	r := slot.Replies()
	if len(r) != 1 {
		return false
	}
	vals, err := r[0].ToArray()
	return err == nil && i < len(vals) && !vals[i].IsNil()
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

// DropMarks takes the posts pids of author, deleted, out of the
// favourites of those who favourited them (who favourited each tells)
// and out of author's pins, and drops their counts and who favourited
// them (index.CountsDelCmds), in two round trips; a bookmark of one is
// dropped when its list is read. Safe to repeat, it goes before the
// posts are unlisted (index.UnlistCmds drops who favourited them too).
func (s *Store) DropMarks(ctx context.Context, author int64, pids []int64) error {
	b := s.C.B()
	reads := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		reads[i] = b.Zrange().Key(schema.FavouritedBy(pid)).Min("0").Max("-1").Build()
	}
	cmds := rueidis.Commands{b.Zrem().Key(schema.Pins(author)).Member(kernel.IDs(pids)...).Build()}
	s.Written.Add(schema.Pins(author))
	for i, r := range s.C.DoMulti(ctx, reads...) {
		uids, err := r.AsIntSlice()
		if err != nil {
			return s.Wrap("drop the marks of deleted posts", err)
		}
		for _, uid := range uids {
			s.Written.Add(schema.Favourites(uid))
			cmds = append(cmds, b.Zrem().Key(schema.Favourites(uid)).Member(kernel.ID(pids[i])).Build())
		}
		cmds = append(cmds, index.CountsDelCmds(s.C, pids[i])...)
	}
	return s.Wrap("drop the marks of deleted posts", redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)))
}
