package store

import (
	"context"
	"time"

	"github.com/retwis/retwis"
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
// jobs, and KeyProgress and KeySnapshots its records.
func KeyQueue(author int64) string     { return schema.QueueOf(author).Stream }
func KeyProgress(author int64) string  { return schema.QueueOf(author).Progress }
func KeySnapshots(author int64) string { return schema.QueueOf(author).Snapshots }

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

// RefreshDirectory brings the directory's entries for uids in line with
// their users.
func (s *Store) RefreshDirectory(ctx context.Context, uids ...int64) error {
	return s.refreshDirectory(ctx, uids...)
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
const DirectoryBudget = directoryBudget

// DirectoryCode returns the directory's code for a follower count, a
// count of posts and a day of sign-up.
func DirectoryCode(followers, posts, day int64) uint64 {
	return index.Directory.Encode(uint64(followers), uint64(posts), uint64(day))
}

// KeyPeopleOf returns the shard of the people search that holds term,
// and KeyTag the posts of a folded tag.
func KeyPeopleOf(term string) string { return schema.People(schema.PeopleOf(term)) }
func KeyTag(folded string) string    { return schema.Tag(folded) }

// KeyCompletionOf returns the shard of the tag completion that holds a
// folded tag.
func KeyCompletionOf(folded string) string { return schema.Completion(schema.CompletionOf(folded)) }

// The stages of a batch of posts at which StartDeletion stops.
const (
	StageNone    = iota // between two batches
	StageHashes         // the posts' hashes deleted, what lists them not yet
	StageCounted        // their tags counted down too, the batch not yet closed
)

// StartDeletion begins the deletion of uid's account as DeleteAccount
// does, carries it on for batches batches, goes on with the next batch
// of posts until stage, and stops as a server that stops would, its
// lease lapsed at once.
func (s *Store) StartDeletion(ctx context.Context, uid int64, password string, batches, stage int) error {
	d, secret, err := s.confirmDeletion(ctx, uid, password)
	if err != nil {
		return err
	}
	token := randomString(20)
	if _, err := s.startDeletion(ctx, d, secret, token); err != nil {
		return err
	}
	if _, _, err := s.runDeletion(ctx, uid, token, batches); err != nil {
		return err
	}
	if stage > StageNone {
		if err := s.halfBatch(ctx, uid, stage); err != nil {
			return err
		}
	}
	return s.C.Do(ctx, s.C.B().Del().Key(schema.DeletingLease(uid)).Build()).Error()
}

// halfBatch does the next batch of uid's posts until stage.
func (s *Store) halfBatch(ctx context.Context, uid int64, stage int) error {
	w, err := s.nextWork(ctx, uid)
	if err != nil {
		return err
	}
	batch, err := s.stashPosts(ctx, uid, w.posts)
	if err != nil {
		return err
	}
	stashed, err := s.unstash(ctx, uid, batch)
	if err != nil {
		return err
	}
	posts, err := s.dropHashes(ctx, stashed)
	if err != nil || stage == StageHashes {
		return err
	}
	if err := s.unlistPosts(ctx, posts); err != nil {
		return err
	}
	return s.uncount(ctx, uid, posts)
}
