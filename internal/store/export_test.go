package store

import (
	"context"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Key names for the tests of package store_test, which check what is
// stored where.
var (
	KeyAuths       = schema.Auths
	KeyNames       = schema.Names
	KeyNamesFolded = schema.NamesFolded
	KeyUser        = schema.User
	KeySessions    = schema.Sessions
)

// SetClock makes the store tell the time of sessions' expiries by now,
// so that tests can move it on.
func (s *Store) SetClock(now func() time.Time) { s.Now = now }

// KeyQueue returns the stream of the delivery queue that takes author's
// jobs.
func KeyQueue(author int64) string { return schema.QueueOf(author).Stream }

// ForgetWrites makes the store forget which cached keys it changed a
// moment ago, as five seconds later, so that tests see warm reads.
func (s *Store) ForgetWrites() { *s.Written = kernel.Written{} }

// SuggestFrom is how many of the users followed who to follow asks.
const SuggestFrom = suggestFrom

// TrendsFresh is how long a store keeps the trending tags it read.
const TrendsFresh = trendsFresh

// ForgetDraw makes the store forget its last draw of people.
func (s *Store) ForgetDraw() { *s.discovery = peopleDraw{} }

// ForgetTrends makes the store forget the trending tags it read, as a
// second later, so that tests see the trends they just changed.
func (s *Store) ForgetTrends() { *s.trendMemo = trendMemo{} }

// AddTrend counts a post with tag, posted at at, in the trends as
// delivering it does, so that tests can simulate the passing of time.
// The shard's keys are then read past the client-side cache, as a
// server reads its own writes, since the test reads them at once.
func (s *Store) AddTrend(ctx context.Context, tag string, at time.Time) error {
	f := retwis.FoldTag(tag)
	n := schema.TrendsOf(f)
	s.Written.Add(schema.Trends(n), schema.TrendEpoch(n))
	return s.C.Do(ctx, index.TrendCmd(s.C, f, at.Unix(), 1)).Error()
}

// KeyExplore is the directory of accounts, KeyPost a post's hash and
// FieldJoined and FieldTime the fields of the sign-up and post times.
const (
	KeyExplore  = schema.Explore
	FieldJoined = schema.FieldJoined
	FieldTime   = schema.FieldTime
)

// KeyPost returns the key of post pid's hash.
func KeyPost(pid int64) string { return schema.Post(pid) }

// DirectoryBudget is how many entries a directory query reads at most.
const DirectoryBudget = accounts.DirectoryBudget

// DirectoryCode returns the directory's code for a follower count, a
// count of posts and a day of sign-up.
func DirectoryCode(followers, posts, day int64) uint64 {
	return index.Directory.Encode(uint64(followers), uint64(posts), uint64(day))
}

// KeyTag returns the key of the posts of a folded tag.
func KeyTag(folded string) string { return schema.Tag(folded) }
