package store_test

import (
	"io"
	"log/slog"
	"os"
	"strconv"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// quiet discards the log of a store under test.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture is a store under test (storetest.Fixture): its client counts
// the round trips to Redis (a pipeline counts once), so tests can prove
// there is no N+1.
type fixture struct{ *storetest.Fixture }

// second opens another store on the fixture's database, as another
// server would, with a client-side cache of its own.
func (f *fixture) second(t *testing.T) *store.Store {
	t.Helper()
	return storetest.Open(t, f.URL, store.Options{})
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureAt(t, redistest.Start(t).URL)
}

func newFixtureAt(t *testing.T, url string) *fixture {
	t.Helper()
	return newFixtureWith(t, url, store.Options{}, true)
}

// newFixtureWith returns a fixture whose store has opts (with
// storetest.OpenCounting's defaults), and a background delivery worker if
// worker is set.
func newFixtureWith(t *testing.T, url string, opts store.Options, worker bool) *fixture {
	t.Helper()
	return &fixture{storetest.NewFixture(t, url, opts, worker)}
}

// cluster is the 3-master cluster that this package's tests of
// onRedisAndCluster take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// databases are the two kinds of database the tests of
// onRedisAndCluster run on: one Redis, and the package's cluster
// (flushed).
var databases = storetest.Databases(&cluster)

// onRedisAndCluster runs test on a fixture of each of databases, side
// by side: the Redis one need not wait for the cluster's turn.
func onRedisAndCluster(t *testing.T, test func(t *testing.T, f *fixture)) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) { test(t, &fixture{f}) })
}

func postIDs(p []retwis.Post) []int64 {
	ids := make([]int64, len(p))
	for i := range p {
		ids[i] = p[i].ID
	}
	return ids
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// entries counts the entries of every hash whose key matches pattern,
// on every master.
func (f *fixture) entries(t *testing.T, pattern string) int {
	t.Helper()
	n := 0
	for _, node := range f.Raw.Nodes() {
		keys, err := node.Do(f.Ctx, node.B().Keys().Pattern(pattern).Build()).AsStrSlice()
		if err != nil {
			continue // a replica, or a node that is down
		}
		for _, k := range keys {
			l, err := node.Do(f.Ctx, node.B().Hlen().Key(k).Build()).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			n += int(l)
		}
	}
	return n
}
