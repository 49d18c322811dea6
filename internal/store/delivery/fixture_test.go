package delivery_test

import (
	"strconv"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// fixture is a store under test (storetest.Fixture), with no delivery
// worker unless asked: the tests run their own.
type fixture struct{ *storetest.Fixture }

// newFixtureWith returns a fixture whose store, on the Redis at url, has
// opts (see storetest.OpenCounting), and a background delivery worker if
// worker is set.
func newFixtureWith(t *testing.T, url string, opts store.Options, worker bool) *fixture {
	t.Helper()
	return &fixture{storetest.NewFixture(t, url, opts, worker)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
