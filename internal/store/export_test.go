package store

// Key names for the tests of package store_test, which check what is
// stored where.
var (
	KeyAuths       = keyAuths
	KeyNames       = keyNames
	KeyNamesFolded = keyNamesFolded
)
