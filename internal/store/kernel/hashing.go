package kernel

import (
	"context"
	"errors"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
)

// The store hashes passwords (Register, Login, ChangePassword) on a
// password.Hasher, at most one hash per core at a time, for the client
// that the context names (password.WithClient, which the interfaces'
// middleware sets from the client's address: middleware.Stack.Hashing):
// the clients waiting take turns, and a client asking for more than its
// share is told the server is busy at once. A known device of the
// account whose password is checked hashes in a lane of its own
// (password.WithKnownClient, which accounts.Store.CheckPassword sets).
// Without a client (the command line, the benchmarks), hashes share one
// anonymous client.

// HashPassword hashes a new password for the context's client.
func (db *DB) HashPassword(ctx context.Context, pass string) (string, error) {
	hash, err := db.Hasher.Hash(ctx, pass)
	return hash, Busy(err)
}

// VerifyPassword checks pass against a hash for the context's client.
// With hash empty it checks against a dummy hash, so that a login
// for an unknown name costs the same as one for a real account.
func (db *DB) VerifyPassword(ctx context.Context, pass, hash string) (bool, error) {
	ok, err := db.Hasher.Verify(ctx, pass, hash)
	return ok, Busy(err)
}

// busy tells a user whose password waited too long for a hasher, or
// whose client has its share waiting already, that the server is busy
// (Unavailable: worth retrying).
func Busy(err error) error {
	if errors.Is(err, password.ErrBusy) {
		return &retwis.Error{Kind: retwis.Unavailable, Err: err,
			Message: "The server is busy. Please try again in a moment."}
	}
	return err
}
