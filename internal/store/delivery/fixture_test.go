package delivery_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// fixture is a store under test, with no delivery worker unless asked:
// the tests run their own.
type fixture struct {
	st  *store.Store
	raw rueidis.Client // a separate client for setting up and inspecting
	ctx context.Context
}

// newFixtureWith returns a fixture whose store, on the Redis at url, has
// opts (see storetest.Open), and a background delivery worker if worker
// is set.
func newFixtureWith(t *testing.T, url string, opts store.Options, worker bool) *fixture {
	t.Helper()
	st := storetest.Open(t, url, opts)
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	if err := st.Migrate(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if worker {
		storetest.StartWorker(t, url, opts)
	}
	return &fixture{st: st, raw: raw, ctx: t.Context()}
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

// home reads uid's home timeline n posts a page.
func (f *fixture) home(t *testing.T, uid int64, n int) func(retwis.Cursor) retwis.Page {
	return func(c retwis.Cursor) retwis.Page {
		t.Helper()
		p, _, err := f.st.HomeTimeline(f.ctx, uid, c, n)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
