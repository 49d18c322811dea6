package posts

import (
	"context"

	"github.com/retwis/retwis"
)

// boosted gives each boost of posts the post it boosts, read as rd reads
// (in one more call, made only when there are boosts, served from the
// client-side cache when warm), and leaves out the boosts whose post rd
// does not see, is gone or cannot be read right now (counted in
// missing), and those of a post the page shows already (the post, or a
// newer boost of it: a home timeline filled by a follow's backfill or a
// rebuild, or merged with a celebrity's posts, did not go through
// kernel.PushBoost); a reader of all keeps them, with the id of the post
// alone.
func (s *Store) boosted(ctx context.Context, rd reader, hidden retwis.Hidden, posts []retwis.Post, missing int) ([]retwis.Post, int, error) {
	var of []int64
	for _, p := range posts {
		if p.Reblog != nil {
			of = append(of, p.Reblog.ID)
		}
	}
	if len(of) == 0 {
		return posts, missing, nil
	}
	rd.along, rd.hidden = nil, &hidden
	originals, _, lost, err := s.posts(ctx, rd, of)
	if err != nil {
		return nil, 0, err
	}
	if originals, err = s.visible(ctx, rd, originals, hidden); err != nil {
		return nil, 0, err
	}
	byID := make(map[int64]*retwis.Post, len(originals))
	for _, o := range originals {
		if o.Reblog == nil { // a boost is of a post, never of a boost
			byID[o.ID] = &o
		}
	}
	shown := make(map[int64]bool, len(posts)) // the posts of the page, boosted or not
	for _, p := range posts {
		if p.Reblog == nil {
			shown[p.ID] = true
		}
	}
	kept := posts[:0]
	for _, p := range posts {
		if p.Reblog != nil {
			o := byID[p.Reblog.ID]
			switch {
			case o != nil && !shown[o.ID]:
				p.Reblog, shown[o.ID] = o, true
			case !rd.all: // the post itself is at stake when all: kept with the id of what it boosts
				continue
			}
		}
		kept = append(kept, p)
	}
	return kept, missing + lost, nil
}
