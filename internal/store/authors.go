package store

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
)

// NameAuthors fills in the display names of the authors of the posts of
// lists (retwis.Post.AuthorDisplayName; a zero Post is skipped; of a
// boost, the post it boosts, whose author the pages show), which
// the pages show beside the usernames: one read of each distinct author,
// all in one call through the client-side cache, so that a warm page
// pays no round trip for them. A post keeps its author's username but not the display
// name, which its author may change at any time, so a cold page pays
// one round trip more, after its posts are read; none on a profile page
// of the user's own posts, whose display name the profile read already.
// The names that cannot be read are left empty (the pages show the
// usernames alone) and the first error returned.
func (s *Store) NameAuthors(ctx context.Context, lists ...[]retwis.Post) error {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	uids := make([]int64, 0, n)
	for _, l := range lists {
		for i := range l {
			if p := shown(&l[i]); p.AuthorID != 0 { // not a post
				uids = append(uids, p.AuthorID)
			}
		}
	}
	if len(uids) == 0 {
		return nil
	}
	var b kernel.Batch
	read := s.StartDisplayNames(uids, &b)
	s.ReadBatch(ctx, &b)
	names, err := read.Names()
	for _, l := range lists {
		for i := range l {
			p := shown(&l[i])
			p.AuthorDisplayName = names[p.AuthorID]
		}
	}
	return err
}

// shown is the post of p that a page shows: the post boosted, for a
// boost.
func shown(p *retwis.Post) *retwis.Post {
	if p.Reblog != nil {
		return p.Reblog
	}
	return p
}
