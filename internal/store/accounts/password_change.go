package accounts

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// ChangePassword sets uid's password to password if current is the
// password now, and ends every other session: a new session begins,
// on the device ctx carries (WithDevice), then, in one script of the
// user's slot, the new password hash is written and every session but
// the new one ends (the secret of before sessions per device too), so
// that no moment has the new password with the old sessions. It returns
// the token of the new session, for the browser that changed it.
// A wrong current password is an error of kind Invalid, and a new one
// that breaks the rules (retwis.ValidatePassword) too; nothing is
// written then. Every API token is revoked too, as Mastodon does: an
// app the old password let in must be let in again. The live streams of
// the sessions and tokens that ended end on every server.
func (s *Store) ChangePassword(ctx context.Context, uid int64, current, password string) (string, error) {
	if err := retwis.ValidatePassword(password); err != nil {
		return "", err
	}
	if len(current) > retwis.MaxPasswordBytes {
		return "", retwis.Errorf(retwis.Invalid, "The current password is wrong.")
	}
	acct, err := s.Account(ctx, uid, false)
	if err != nil {
		return "", err
	}
	ok, err := s.CheckPassword(ctx, uid, acct, current)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", retwis.Errorf(retwis.Invalid, "The current password is wrong.")
	}
	hash, err := s.HashPassword(ctx, password)
	if err != nil {
		return "", err
	}
	ctx, cancel := kernel.Detach(ctx) // once begun, it completes even if the client goes away
	defer cancel()
	token, err := s.newSession(ctx, uid)
	if err != nil {
		return "", err
	}
	if err := s.endSessions(ctx, uid, acct.Auth, token, schema.FieldPasswordHash, hash, schema.FieldPassword, ""); err != nil {
		if derr := s.EndSession(ctx, uid, SessionID(token)); derr != nil { // a session nobody was given
			s.Log.Warn("a session begun for a password change that failed stays until it expires", "user", uid, "err", derr)
		}
		return "", err
	}
	if err := s.RevokeTokens(ctx, uid); err != nil {
		return "", err
	}
	return token, nil
}
