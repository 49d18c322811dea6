package store

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
)

// NameAuthors fills in the display names of the authors of the posts of
// lists (retwis.Post.AuthorDisplayName; a zero Post is skipped; a boost
// gets its booster's, and the post it boosts its author's), which the
// pages show beside the usernames: one read of each distinct author,
// all in one call through the client-side cache, so that a warm page
// pays no round trip for them. A post keeps its author's username but
// not the display name, which its author may change at any time, so a
// cold page pays one round trip more, after its posts are read; none on
// a profile page of the user's own posts, whose display name the
// profile read already. The names that cannot be read are left empty
// (the pages show the usernames alone) and the first error returned.
func (s *Store) NameAuthors(ctx context.Context, lists ...[]retwis.Post) error {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	uids := make([]int64, 0, n)
	each(lists, func(p *retwis.Post) { uids = append(uids, p.AuthorID) })
	if len(uids) == 0 {
		return nil
	}
	var b kernel.Batch
	read := s.StartDisplayNames(uids, &b)
	s.ReadBatch(ctx, &b)
	names, err := read.Names()
	each(lists, func(p *retwis.Post) { p.AuthorDisplayName = names[p.AuthorID] })
	return err
}

// each calls f with each post of lists and each post a boost of them
// boosts, but zero Posts.
func each(lists [][]retwis.Post, f func(*retwis.Post)) {
	for _, l := range lists {
		for i := range l {
			for p := &l[i]; p != nil && p.AuthorID != 0; p = p.Reblog {
				f(p)
			}
		}
	}
}
