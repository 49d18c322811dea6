package store

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// ChangePassword sets uid's password to password if current is the
// password now, and ends every other session: the new password hash and
// a new auth secret are written together, in one command of the user
// hash, so that no moment has one without the other. It returns the
// session token of the new secret, for the session that changed it.
// A wrong current password is an error of kind Invalid, and a new one
// that breaks the rules (retwis.ValidatePassword) too; nothing is
// written then. API tokens are not sessions: they stay, listed on the
// apps page.
func (s *Store) ChangePassword(ctx context.Context, uid int64, current, password string) (string, error) {
	if err := retwis.ValidatePassword(password); err != nil {
		return "", err
	}
	if len(current) > retwis.MaxPasswordBytes {
		return "", retwis.Errorf(retwis.Invalid, "The current password is wrong.")
	}
	acct, err := s.account(ctx, uid, false)
	if err != nil {
		return "", err
	}
	ok, err := s.checkPassword(ctx, uid, acct, current)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", retwis.Errorf(retwis.Invalid, "The current password is wrong.")
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return "", err
	}
	ctx, cancel := detach(ctx) // once begun, it completes even if the client goes away
	defer cancel()
	secret := newSecret()
	s.written.add(schema.User(uid))
	err = updateFields.exec(ctx, s.c, []string{schema.User(uid)},
		schema.FieldPasswordHash, hash, schema.FieldAuth, secret, schema.FieldPassword, "").Error()
	if err != nil {
		return "", s.wrap("change password", err)
	}
	s.forgetSecret(ctx, uid, acct.auth)
	return sessionToken(uid, secret), nil
}
