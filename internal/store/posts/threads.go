package posts

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Thread returns post pid with its conversation: the posts above it, as
// the post recorded them when it was posted, and a page of n of its
// replies, oldest first, after the reply after (0: from the first). It
// reads the chain and the replies in one call, then every post it shows
// in another, both through the client-side cache: two round trips at
// most, however long the thread, none when warm. The posts viewer (0:
// logged out) does not see are left out; the post itself is then not
// found.
func (s *Store) Thread(ctx context.Context, viewer, pid, after int64, n int) (retwis.Thread, error) {
	b := s.C.B()
	res := s.CachedMulti(ctx,
		rueidis.CT(b.Hget().Key(schema.Post(pid)).Field(schema.FieldAncestors).Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zrangebyscore().Key(schema.Replies(pid)).Min("("+kernel.ID(after)).Max("+inf").
			Limit(0, int64(n+1)).Cache(), s.Opts.CacheTTL))
	chain, err := res[0].ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return retwis.Thread{}, s.Wrap("thread", err)
	}
	replies, err := res[1].AsIntSlice()
	if err != nil {
		return retwis.Thread{}, s.Wrap("thread: replies", err)
	}
	var ancestors []int64 // nearest first
	for a := range strings.SplitSeq(chain, ",") {
		if n, err := strconv.ParseInt(a, 10, 64); err == nil {
			ancestors = append(ancestors, n)
		}
	}
	t := retwis.Thread{Replies: retwis.Page{Older: after > 0, Newer: len(replies) > n}}
	replies = replies[:min(n, len(replies))]
	rd := reader{id: viewer, where: retwis.InConversation}
	found, hidden, missing, err := s.posts(ctx, rd, append(append([]int64{pid}, ancestors...), replies...))
	if err != nil {
		return t, err
	}
	byID := make(map[int64]retwis.Post, len(found))
	for _, p := range found {
		byID[p.ID] = p
	}
	shown, err := s.visible(ctx, rd, found, hidden)
	if err != nil {
		return t, err
	}
	seen := make(map[int64]bool, len(shown))
	for _, p := range shown {
		seen[p.ID] = true
	}
	var ok bool
	if t.Post, ok = byID[pid]; !ok || !seen[pid] {
		return t, noPost(pid, missing)
	}
	for _, a := range ancestors { // up the chain as far as it stands
		p, ok := byID[a]
		if !ok {
			t.ParentGone = true
			break
		}
		if seen[a] { // the chain goes on above it, hidden or not
			t.Ancestors = append([]retwis.Post{p}, t.Ancestors...)
		}
	}
	for _, r := range replies {
		if p, ok := byID[r]; ok && seen[r] {
			t.Replies.Posts = append(t.Replies.Posts, p)
		}
	}
	t.Replies.Missing = missing
	return t, nil
}
