package storetest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// Fixture is a migrated store under test, for the tests of the packages
// built on the online store; its client counts the round trips to Redis
// (a pipeline counts once), and a second client sets up and inspects
// what is stored.
type Fixture struct {
	St  *store.Store    // the store under test
	RC  *Counting       // the store's client, counting
	Raw rueidis.Client  // a separate client for setting up and inspecting
	Ctx context.Context // the test's context
	URL string          // the Redis or cluster
}

// NewFixture returns a Fixture on the Redis or cluster at url whose
// store has opts (see OpenCounting for the defaults), migrated, and a
// background delivery worker if worker is set.
func NewFixture(t testing.TB, url string, opts store.Options, worker bool) *Fixture {
	t.Helper()
	st, rc := OpenCounting(t, url, opts)
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	if err := st.Migrate(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if worker {
		StartWorker(t, url, opts)
	}
	return &Fixture{St: st, RC: rc, Raw: raw, Ctx: t.Context(), URL: url}
}

// Database is a kind of database that tests run on: its URL gives one,
// empty, to a test.
type Database struct {
	Name string                    // the name of its subtests
	URL  func(t testing.TB) string // an empty one for t
}

// Databases are the two kinds of database that the tests of a store
// run on: one Redis, and the package's shared cluster (flushed), which
// its TestMain stops.
func Databases(cluster *redistest.SharedCluster) []Database {
	return []Database{
		{"redis", func(t testing.TB) string { return redistest.Start(t).URL }},
		{"cluster", cluster.URL},
	}
}

// OnRedisAndCluster runs test on a Fixture, with a delivery worker, on
// each of the two kinds of database, side by side: a new Redis, and
// cluster (flushed, once it is the test's turn), the shared cluster of
// the test's package.
func OnRedisAndCluster(t *testing.T, cluster *redistest.SharedCluster, test func(t *testing.T, f *Fixture)) {
	for _, db := range Databases(cluster) {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			test(t, NewFixture(t, db.URL(t), store.Options{}, true))
		})
	}
}

// Drain waits until every delivery job has been carried out.
func (f *Fixture) Drain(t testing.TB) {
	t.Helper()
	Drain(t, f.St)
}

// Register signs name up, with the password "password1".
func (f *Fixture) Register(t testing.TB, name string) retwis.User {
	t.Helper()
	u, _, err := f.St.Register(f.Ctx, name, "password1")
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return u
}

// Post publishes d.
func (f *Fixture) Post(t testing.TB, d posts.Draft) retwis.Post {
	t.Helper()
	p, err := f.St.Publish(f.Ctx, d)
	if err != nil {
		t.Fatalf("publish %+v: %v", d, err)
	}
	return p.Post
}

// Home reads uid's home timeline n posts a page, for PageAll.
func (f *Fixture) Home(t testing.TB, uid int64, n int) func(retwis.Cursor) retwis.Page {
	return func(c retwis.Cursor) retwis.Page {
		t.Helper()
		p, _, err := f.St.HomeTimeline(f.Ctx, uid, c, n)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// Do runs a raw command and returns its reply as a string ("" for nil;
// see redistest.Do).
func (f *Fixture) Do(t testing.TB, args ...string) string {
	t.Helper()
	return redistest.Do(t, f.Raw, args...)
}

// Strs runs a raw command whose reply is an array of strings (see
// redistest.Strs).
func (f *Fixture) Strs(t testing.TB, args ...string) []string {
	t.Helper()
	return redistest.Strs(t, f.Raw, args...)
}

// Keys returns the keys matching pattern on every master.
func (f *Fixture) Keys(t testing.TB, pattern string) []string {
	t.Helper()
	var all []string
	for _, node := range f.Raw.Nodes() {
		keys, err := node.Do(f.Ctx, node.B().Keys().Pattern(pattern).Build()).AsStrSlice()
		if err == nil {
			all = append(all, keys...)
		}
	}
	return all
}

// Snapshot returns every key with its serialised value, to prove that an
// operation wrote nothing.
func (f *Fixture) Snapshot(t testing.TB) map[string]string {
	t.Helper()
	return redistest.Snapshot(t, f.Raw)
}

// AssertUnchanged fails t unless every key is as in before, a Snapshot.
func (f *Fixture) AssertUnchanged(t testing.TB, before map[string]string) {
	t.Helper()
	after := f.Snapshot(t)
	if len(after) != len(before) {
		t.Fatalf("keys changed: before %d, after %d", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("key %s changed", k)
		}
	}
}

// WantKind fails t unless err is an error of kind.
func WantKind(t testing.TB, err error, kind retwis.Kind) {
	t.Helper()
	if got := retwis.ErrorKind(err); err == nil || got != kind {
		t.Fatalf("error = %v (kind %v); want kind %v", err, got, kind)
	}
}
