package store

// Key names for the tests of package store_test, which check what is
// stored where.
var (
	KeyAuths       = keyAuths
	KeyNames       = keyNames
	KeyNamesFolded = keyNamesFolded
)

// KeyQueue returns the stream of the delivery queue that takes author's
// jobs, and KeyProgress and KeySnapshots its records.
func KeyQueue(author int64) string     { return queueOf(author).stream }
func KeyProgress(author int64) string  { return queueOf(author).progress }
func KeySnapshots(author int64) string { return queueOf(author).snapshots }
