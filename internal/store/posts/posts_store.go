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
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/bounded"
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
	// media and cards keep posts' pictures and link previews decoded, by
	// their JSON (decoding would cost more than the rest of a post's read).
	media *bounded.Map[string, []retwis.Attachment]
	cards *bounded.Map[string, *retwis.Card]
}

// memoCounts is how many posts' counts a Store keeps in memory.
const memoCounts = 100_000

// New returns the posts kept in the database of a.
func New(a *accounts.Store) *Store {
	return &Store{Store: a, counts: kernel.NewMemo[[2]int64](a.DB, schema.Counts, schema.CountsOf, memoCounts),
		media: bounded.New[string, []retwis.Attachment](memoDecoded), cards: bounded.New[string, *retwis.Card](memoDecoded)}
}

// memoDecoded is how many posts' pictures, and cards, a Store keeps.
const memoDecoded = 10_000

// decodeMedia and decodeCard decode a post hash's media and card fields
// as kept, a copy of each (callers may change theirs).
func (s *Store) decodeMedia(v string) []retwis.Attachment {
	return slices.Clone(s.media.LoadOrMake(v, retwis.DecodeAttachments))
}

func (s *Store) decodeCard(v string) *retwis.Card {
	if c := s.cards.LoadOrMake(v, retwis.DecodeCard); c != nil {
		cp := *c
		return &cp
	}
	return nil
}
