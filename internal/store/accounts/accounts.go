// Package accounts keeps retwis's accounts in Redis: sign-up and the
// names (users.go), logins, sessions per device and the secret of before
// them (auth.go, sessions.go), API apps, authorization codes and tokens
// (oauth.go), password changes, failed logins and the rate limits of
// every action (login_failures.go, ratelimit.go), display names and bios
// (about.go), the end of an account's access (access.go) and the
// directory of accounts (explore.go).
//
// It is the lowest layer of the online store: package posts builds on
// it, and package store on both; it imports neither.
package accounts

import (
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Store reads and writes the accounts of retwis in Redis.
type Store struct {
	*kernel.DB
	// names keeps the display names pages read (see DisplayNames).
	names *kernel.Memo[string]
}

// memoNames is how many users' display names a Store keeps in memory.
const memoNames = 50_000

// New returns the accounts kept in db.
func New(db *kernel.DB) *Store {
	return &Store{DB: db, names: kernel.NewMemo[string](db, schema.User, schema.UserOf, memoNames)}
}
