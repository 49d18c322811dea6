package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
)

// Check runs a whole consistency check of st's database (check.Run)
// with a short settling pause, in the scope "test", repairing what it
// finds if repair is set; it fails the test unless the check got to the
// end.
func Check(t testing.TB, st *store.Store, repair bool) check.Report {
	t.Helper()
	rep, err := check.Run(t.Context(), st, check.Options{Repair: repair, Scope: "test", Settle: 20 * time.Millisecond})
	if err != nil || !rep.Done {
		t.Fatalf("check: %+v, %v", rep, err)
	}
	return rep
}

// Problems returns what rep found as "kind: what ×count".
func Problems(rep check.Report) []string {
	var got []string
	for _, p := range rep.Problems {
		got = append(got, fmt.Sprintf("%s: %s ×%d", p.Kind, p.What, p.Count))
	}
	return got
}

// Check runs a whole check of f's database (see Check).
func (f *Fixture) Check(t testing.TB, repair bool) check.Report {
	t.Helper()
	return Check(t, f.St, repair)
}
