package storetest

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// Fixture is a store under test on a migrated database, with a client of
// its own to set the database up and inspect it behind the store's back:
// for the tests of the packages that work on the store from outside
// (package check).
type Fixture struct {
	St  *store.Store
	Raw rueidis.Client // a separate client for setting up and inspecting
	Ctx context.Context
	URL string // the Redis or cluster
}

// NewFixture returns a Fixture on the Redis at url whose store has opts
// (as Open gives them), migrated, with a background delivery worker if
// worker is set.
func NewFixture(t testing.TB, url string, opts store.Options, worker bool) *Fixture {
	t.Helper()
	st := Open(t, url, opts)
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	if err := st.Migrate(t.Context(), st.Log); err != nil {
		t.Fatal(err)
	}
	if worker {
		StartWorker(t, url, opts)
	}
	return &Fixture{St: st, Raw: raw, Ctx: t.Context(), URL: url}
}

// OnRedisAndCluster runs test on a Fixture, with a delivery worker, on
// each of the two kinds of database: a new Redis, and cluster (flushed),
// the shared cluster of the test's package.
func OnRedisAndCluster(t *testing.T, cluster *redistest.SharedCluster, test func(t *testing.T, f *Fixture)) {
	for _, db := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"redis", func(t *testing.T) string { return redistest.Start(t).URL }},
		{"cluster", func(t *testing.T) string { return cluster.URL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) { test(t, NewFixture(t, db.url(t), store.Options{}, true)) })
	}
}

// Drain waits until every delivery job has been carried out.
func (f *Fixture) Drain(t testing.TB) {
	t.Helper()
	Drain(t, f.St)
}

// Register registers a user of name, with the password "password1".
func (f *Fixture) Register(t testing.TB, name string) retwis.User {
	t.Helper()
	u, _, err := f.St.Register(f.Ctx, name, "password1")
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	return u
}

// Post publishes d, failing the test on an error.
func (f *Fixture) Post(t testing.TB, d store.Draft) retwis.Post {
	t.Helper()
	p, err := f.St.Publish(f.Ctx, d)
	if err != nil {
		t.Fatalf("publish %+v: %v", d, err)
	}
	return p
}

// Do runs a raw command and returns its reply as a string ("" for nil).
func (f *Fixture) Do(t testing.TB, args ...string) string {
	t.Helper()
	msg, err := f.Raw.Do(f.Ctx, f.Raw.B().Arbitrary(args...).Build()).ToMessage()
	if rueidis.IsRedisNil(err) {
		return ""
	}
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if msg.IsInt64() {
		n, _ := msg.AsInt64()
		return strconv.FormatInt(n, 10)
	}
	v, _ := msg.ToString()
	return v
}

// Strs runs a raw command whose reply is a list of strings.
func (f *Fixture) Strs(t testing.TB, args ...string) []string {
	t.Helper()
	v, err := f.Raw.Do(f.Ctx, f.Raw.B().Arbitrary(args...).Build()).AsStrSlice()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// Snapshot returns every key with its serialised value, to prove that an
// operation wrote nothing.
func (f *Fixture) Snapshot(t testing.TB) map[string]string {
	t.Helper()
	return redistest.Snapshot(t, f.Raw)
}
