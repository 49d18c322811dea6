package accounts

import "context"

// EndAccess ends every way uid's account is used: its sessions (the
// secret of before sessions per device too) and its API tokens.
func (s *Store) EndAccess(ctx context.Context, uid int64) error {
	if err := s.EndSessions(ctx, uid, ""); err != nil {
		return err
	}
	return s.RevokeTokens(ctx, uid)
}
