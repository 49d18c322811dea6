// Package posts keeps retwis's posts in Redis, with what reads them:
// publishing and deleting a post (posts.go, idempotency.go), its
// conversation (conversation.go, threads.go), the timelines (home.go,
// home_rebuild.go, timeline.go, tags.go), notifications and mentions
// (notifications.go), the summaries and counts pages show
// (summaries.go), live events (events.go), what a reader does not see
// (hidden.go) and the weight of a suspended account's posts in the
// trends (trend_weight.go). Moderation and reports, which act on posts,
// are package store's, through PostsSeen and ModeratedPost.
//
// It builds on package accounts (a post's author, suspensions, rate
// limits) and package store builds on it; it imports neither store nor
// any background package.
package posts

import (
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Store reads and writes the posts of retwis, and the accounts they
// need, in Redis.
type Store struct {
	*accounts.Store
	// counts keeps the counts of favourites and boosts pages read (see
	// marks).
	counts *kernel.Memo[[2]int64]
}

// memoCounts is how many posts' counts a Store keeps in memory.
const memoCounts = 100_000

// New returns the posts kept in the database of a.
func New(a *accounts.Store) *Store {
	return &Store{Store: a, counts: kernel.NewMemo[[2]int64](a.DB, schema.Counts, schema.CountsOf, memoCounts)}
}
