package store

import (
	"github.com/redis/rueidis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/posts"
)

// Store is the online API of retwis's data in Redis, what the pages,
// the client API and the live streams call: the interactions, posts and
// accounts of packages interact, posts and accounts (whose methods it
// has), and the graph and discovery of this package.
type Store struct {
	*interact.Store
	// trendMemo keeps the trending tags for a moment, historyMemo the
	// histories of tags, discovery the random draw of people.
	trendMemo   *trendMemo
	historyMemo *historyMemo
	discovery   *peopleDraw
}

// Options configure a Store.
type Options = kernel.Options

// Limits are the rate limits the store applies per account.
type Limits = kernel.Limits

// New returns a Store on client. The Store takes ownership of client and
// closes it in Close.
func New(client rueidis.Client, opts Options) (*Store, error) {
	db, err := kernel.New(client, opts)
	if err != nil {
		return nil, err
	}
	return &Store{Store: interact.New(posts.New(accounts.New(db))), trendMemo: &trendMemo{}, historyMemo: &historyMemo{}, discovery: &peopleDraw{}}, nil
}

// Through returns a store that is s but for the client it sends its
// Redis calls through (see kernel.DB.Through).
func (s *Store) Through(client rueidis.Client) *Store {
	t := *s
	t.Store = interact.New(posts.New(accounts.New(s.DB.Through(client))))
	return &t
}
