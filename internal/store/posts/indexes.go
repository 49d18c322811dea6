package posts

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
)

// Unindex takes p out of its indexes, in one pipeline.
func (s *Store) Unindex(ctx context.Context, p index.Post) error {
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.UnindexCmds(s.C, p) }))
	return s.Wrap("unindex", err)
}
