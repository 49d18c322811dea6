package store

import "github.com/retwis/retwis/internal/store/schema"

// Key names for the tests of package store_test, which check what is
// stored where.
var (
	KeyAuths       = schema.Auths
	KeyNames       = schema.Names
	KeyNamesFolded = schema.NamesFolded
)

// KeyQueue returns the stream of the delivery queue that takes author's
// jobs, and KeyProgress and KeySnapshots its records.
func KeyQueue(author int64) string     { return schema.QueueOf(author).Stream }
func KeyProgress(author int64) string  { return schema.QueueOf(author).Progress }
func KeySnapshots(author int64) string { return schema.QueueOf(author).Snapshots }

// ForgetWrites makes the store forget which cached keys it changed a
// moment ago, as five seconds later, so that tests see warm reads.
func (s *Store) ForgetWrites() { *s.written = written{} }
