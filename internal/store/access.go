package store

import (
	"context"

	"github.com/retwis/retwis/internal/store/schema"
)

// endAccess ends every way uid's account is used: its session secret is
// replaced (every cookie dies) and its API tokens are revoked.
func (s *Store) endAccess(ctx context.Context, uid int64) error {
	acct, err := s.account(ctx, uid, false)
	if err != nil {
		return err
	}
	if _, err := s.rotate(ctx, uid, acct.auth); err != nil {
		return err
	}
	s.written.add(schema.Tokens(uid), schema.TokensUsed(uid))
	err = s.c.Do(ctx, s.c.B().Del().Key(schema.Tokens(uid), schema.TokensUsed(uid)).Build()).Error()
	return s.wrap("revoke tokens", err)
}
