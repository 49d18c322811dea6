package store

import (
	"context"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
)

// maxHashWait bounds how long a login or sign-up waits for a free hasher
// before it is told the server is busy.
const maxHashWait = 3 * time.Second

// acquireHasher takes one of the slots that bound concurrent argon2id
// computations. Each one holds 19 MiB and a core for about 20 ms, so an
// unbounded burst of logins (even for unknown names) would exhaust memory;
// with the bound, a burst only queues.
func (s *Store) acquireHasher(ctx context.Context) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, maxHashWait)
	defer cancel()
	select {
	case s.hashers <- struct{}{}:
		return func() { <-s.hashers }, nil
	case <-ctx.Done():
		return nil, &retwis.Error{Kind: retwis.Unavailable, Err: ctx.Err(),
			Message: "The server is busy. Please try again in a moment."}
	}
}

// hashPassword hashes a new password under the concurrency bound.
func (s *Store) hashPassword(ctx context.Context, pass string) (string, error) {
	release, err := s.acquireHasher(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return password.Hash(pass, s.opts.Password)
}

// verifyPassword checks pass against a hash under the concurrency bound.
// With hash empty it checks against a dummy hash, so that a login for an
// unknown name costs the same as one for a real account.
func (s *Store) verifyPassword(ctx context.Context, pass, hash string) (bool, error) {
	release, err := s.acquireHasher(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if hash == "" {
		password.Verify(pass, s.dummy)
		return false, nil
	}
	return password.Verify(pass, hash)
}
