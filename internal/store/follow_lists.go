package store

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// Followers returns a page of the users following uid, the most recent
// first, each with the time they followed; c names a user of the list
// (Before: the page after them, After: the page before them).
func (s *Store) Followers(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.UserPage(ctx, schema.Followers(uid), c, n)
}

// Following returns a page of the users uid follows, likewise.
func (s *Store) Following(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.UserPage(ctx, schema.Following(uid), c, n)
}
