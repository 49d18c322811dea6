package store

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
)

// unindex takes p out of its indexes, in one pipeline.
func (s *Store) unindex(ctx context.Context, p index.Post) error {
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.UnindexCmds(s.C, p) }))
	return s.Wrap("unindex", err)
}
