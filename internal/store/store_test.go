package store_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// quiet discards the log of a store under test.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture is a store under test; its client counts the round trips to
// Redis (a pipeline counts once), so tests can prove there is no N+1.
type fixture struct {
	st  *store.Store
	rc  *storetest.Counting // the store's client, counting
	raw rueidis.Client      // a separate client for setting up and inspecting
	ctx context.Context
	url string // the Redis or cluster
}

// second opens another store on the fixture's database, as another
// server would, with a client-side cache of its own.
func (f *fixture) second(t *testing.T) *store.Store {
	t.Helper()
	return storetest.Open(t, f.url, store.Options{})
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
	st, rc := storetest.OpenCounting(t, url, opts)
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	if err := st.Migrate(t.Context(), quiet); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, rc: rc, raw: raw, ctx: t.Context(), url: url}
	if worker {
		storetest.StartWorker(t, url, opts)
	}
	return f
}

// cluster is the 3-master cluster that this package's tests of
// onRedisAndCluster take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) {
	code := m.Run()
	cluster.Stop()
	os.Exit(code)
}

// databases are the two kinds of database the tests of
// onRedisAndCluster run on: one Redis, and the package's cluster
// (flushed).
var databases = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"redis", func(t *testing.T) string { return redistest.Start(t).URL }},
	{"cluster", func(t *testing.T) string { return cluster.URL(t) }},
}

// onRedisAndCluster runs test on a fixture of each of databases, side
// by side: the Redis one need not wait for the cluster's turn.
func onRedisAndCluster(t *testing.T, test func(t *testing.T, f *fixture)) {
	for _, db := range databases {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			test(t, newFixtureAt(t, db.url(t)))
		})
	}
}

// drain waits until every delivery job has been carried out.
func (f *fixture) drain(t *testing.T) {
	t.Helper()
	storetest.Drain(t, f.st)
}

func (f *fixture) register(t *testing.T, name string) retwis.User {
	t.Helper()
	u, _, err := f.st.Register(f.ctx, name, "password1")
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return u
}

// do runs a raw command and returns its reply as a string ("" for nil).
func (f *fixture) do(t *testing.T, args ...string) string {
	t.Helper()
	return redistest.Do(t, f.raw, args...)
}

func (f *fixture) strs(t *testing.T, args ...string) []string {
	t.Helper()
	return redistest.Strs(t, f.raw, args...)
}

// snapshot returns every key with its serialised value, to prove that an
// operation wrote nothing.
func (f *fixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return redistest.Snapshot(t, f.raw)
}

func (f *fixture) assertUnchanged(t *testing.T, before map[string]string) {
	t.Helper()
	after := f.snapshot(t)
	if len(after) != len(before) {
		t.Fatalf("keys changed: before %d, after %d", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("key %s changed", k)
		}
	}
}

func postIDs(p []retwis.Post) []int64 {
	ids := make([]int64, len(p))
	for i := range p {
		ids[i] = p[i].ID
	}
	return ids
}

func wantKind(t *testing.T, err error, kind retwis.Kind) {
	t.Helper()
	if got := retwis.ErrorKind(err); err == nil || got != kind {
		t.Fatalf("error = %v (kind %v); want kind %v", err, got, kind)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// entries counts the entries of every hash whose key matches pattern,
// on every master.
func (f *fixture) entries(t *testing.T, pattern string) int {
	t.Helper()
	n := 0
	for _, node := range f.raw.Nodes() {
		keys, err := node.Do(f.ctx, node.B().Keys().Pattern(pattern).Build()).AsStrSlice()
		if err != nil {
			continue // a replica, or a node that is down
		}
		for _, k := range keys {
			l, err := node.Do(f.ctx, node.B().Hlen().Key(k).Build()).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			n += int(l)
		}
	}
	return n
}
