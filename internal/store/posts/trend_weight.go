package posts

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/index"
)

// TrendWindow is how far back a suspended account's posts weigh in the
// trends: suspending it takes the weight of its posts of the last
// TrendWindow out of them (and lifting the suspension puts it back, with
// TrendCmds), so that deleting one of those posts must not take it out
// again (Uncounter).
const TrendWindow = 16 * index.TrendHalfLife // older posts weigh less than 2^-16 of a new one

// TrendCmds return the commands that add sign times p's weight to its
// tags' trends (none for a post that is not listed: it has no weight).
func (s *Store) TrendCmds(p index.Post, sign int) rueidis.Commands {
	var cmds rueidis.Commands
	for _, tag := range p.ListedTags() {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds, index.TrendCmd(s.C, f, p.Time, sign))
		}
	}
	return cmds
}

// Uncounter returns the builder of index.UncountCmds of posts being
// deleted, but for a suspended author's post whose weight its
// suspension took out of the trends already (TrendWindow): that weight is
// put back first, so that the post is taken out once. It reads the
// suspended accounts once, through the client-side cache (if it cannot,
// none counts as suspended).
func (s *Store) Uncounter(ctx context.Context) func(p index.Post) rueidis.Commands {
	suspended, _ := s.Suspended(ctx)
	since := time.Now().Add(-TrendWindow).Unix()
	return func(p index.Post) rueidis.Commands {
		cmds := index.UncountCmds(s.C, p)
		if !suspended[p.Author] || p.Time < since {
			return cmds
		}
		return append(s.TrendCmds(p, 1), cmds...)
	}
}
