package store_test

import (
	"testing"

	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// problems returns what rep found as "kind: what ×count".
func problems(rep check.Report) []string { return storetest.Problems(rep) }

// check runs a whole check with a short settling pause.
func (f *fixture) check(t *testing.T, repair bool) check.Report {
	t.Helper()
	return storetest.Check(t, f.St, repair)
}
