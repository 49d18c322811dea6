package store

import (
	"context"
	"errors"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
)

// hashPassword hashes a new password, at most one per core at a time.
func (s *Store) hashPassword(ctx context.Context, pass string) (string, error) {
	hash, err := s.hasher.Hash(ctx, pass)
	return hash, busy(err)
}

// verifyPassword checks pass against a hash, at most one per core at a
// time. With hash empty it checks against a dummy hash, so that a login
// for an unknown name costs the same as one for a real account.
func (s *Store) verifyPassword(ctx context.Context, pass, hash string) (bool, error) {
	ok, err := s.hasher.Verify(ctx, pass, hash)
	return ok, busy(err)
}

// busy tells a user whose password waited too long for a hasher that the
// server is busy (Unavailable: worth retrying).
func busy(err error) error {
	if errors.Is(err, password.ErrBusy) {
		return &retwis.Error{Kind: retwis.Unavailable, Err: err,
			Message: "The server is busy. Please try again in a moment."}
	}
	return err
}
