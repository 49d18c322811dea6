package store

import (
	"context"

	"github.com/retwis/retwis"
)

// Shown refuses to show the account uid to viewer (0: logged out) if it
// is suspended and viewer is not a moderator: an error of kind
// NotFound, as for a deleted account, until the suspension is lifted.
// The profile pages and the API's accounts ask it; the listings of
// accounts leave suspended ones out for everybody (accounts.Listed).
func (s *Store) Shown(ctx context.Context, viewer, uid int64) error {
	suspended, err := s.Suspended(ctx)
	if err != nil || !suspended[uid] {
		return err
	}
	if viewer != 0 {
		if mod, err := s.IsModerator(ctx, viewer); err != nil || mod {
			return err
		}
	}
	return retwis.Errorf(retwis.NotFound, "There is no such account.")
}
