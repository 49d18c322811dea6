package snowflake_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/redlock"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func workerLock(n int) string { return fmt.Sprint("test:worker:", n) }

// locks returns a Redlock client on one real Redis, and a plain client
// to meddle with its keys.
func locks(t *testing.T) (*redlock.Client, rueidis.Client) {
	return locksWith(t, redlock.Options{MaxExtensions: -1})
}

// locksWith is locks with the Redlock client's options.
func locksWith(t *testing.T, opts redlock.Options) (*redlock.Client, rueidis.Client) {
	url := redistest.Start(t).URL
	l, err := redlock.New([]string{url}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	opt := must.Value(rueidis.ParseURL(url))(t)
	opt.DisableCache = true
	raw, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	return l, raw
}

// TestLeaseDistinct leases a number for many generators at once: each
// gets its own, and ids never repeat across them.
func TestLeaseDistinct(t *testing.T) {
	t.Parallel()
	l, _ := locks(t)
	seen := map[int]bool{}
	ids := map[int64]bool{}
	for range 10 {
		g := snowflake.NewLeased()
		if _, err := g.Next(t.Context()); !errors.Is(err, snowflake.ErrNoLease) {
			t.Fatalf("an unleased generator made an id: %v", err)
		}
		stop, err := snowflake.Lease(t.Context(), l, workerLock, 2*time.Second, g, quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		id, err := g.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if w := snowflake.Worker(id); seen[w] {
			t.Fatalf("worker number %d leased twice", w)
		} else {
			seen[w] = true
		}
		for range 100 {
			id := must.Value(g.Next(t.Context()))(t)
			if ids[id] {
				t.Fatalf("id %d made twice", id)
			}
			ids[id] = true
		}
	}
}

// TestLeaseAllTaken fills every worker number: the next lease fails
// with a clear error instead of sharing one.
func TestLeaseAllTaken(t *testing.T) {
	t.Parallel()
	l, raw := locks(t)
	for n := range snowflake.Workers {
		if err := raw.Do(t.Context(), raw.B().Set().Key(workerLock(n)).Value("someone").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := snowflake.Lease(ctx, l, workerLock, time.Second, snowflake.NewLeased(), quiet); err == nil {
		t.Fatal("a 65th generator got a worker number")
	}
}

// TestLeaseLost takes a generator's lock from under it: it stops making
// ids with that number before anyone else could use it, and leases
// another.
func TestLeaseLost(t *testing.T) {
	t.Parallel()
	l, raw := locks(t)
	g := snowflake.NewLeased()
	ttl := 600 * time.Millisecond
	stop, err := snowflake.Lease(t.Context(), l, workerLock, ttl, g, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	first := must.Value(g.Next(t.Context()))(t)
	w := snowflake.Worker(first)
	// Someone else now holds w (as after the lock's key was lost).
	if err := raw.Do(t.Context(), raw.B().Set().Key(workerLock(w)).Value("thief").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		id, err := g.Next(t.Context())
		if err == nil && snowflake.Worker(id) != w {
			return // a new number
		}
		if err == nil && time.Now().After(deadline) {
			t.Fatalf("still making ids with the stolen number %d", w)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new number: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLeaseKeptThroughSlowness: the lock server stops answering for
// longer than two extension periods but less than the lease's validity
// (a saturated CPU, a failover): the failed extensions are tried again
// until one goes through, and the generator keeps its number and makes
// ids all along.
func TestLeaseKeptThroughSlowness(t *testing.T) {
	t.Parallel()
	l, raw := locksWith(t, redlock.Options{MaxExtensions: -1, InstanceTimeout: 200 * time.Millisecond})
	g := snowflake.NewLeased()
	const ttl = 6 * time.Second // extended every 2 s; valid until about 6 s without
	stop := must.Value(snowflake.Lease(t.Context(), l, workerLock, ttl, g, quiet))(t)
	defer stop()
	w := snowflake.Worker(must.Value(g.Next(t.Context()))(t))
	// For the next 4.6 s: the extension at 2 s fails, and so would one 2 s
	// after it; tried again every 0.6 s, one after the pause goes through,
	// most of a second before the lease would end.
	must.OK(t, raw.Do(t.Context(), raw.B().ClientPause().Timeout(4600).All().Build()).Error())
	for end := time.Now().Add(ttl + 500*time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		id, err := g.Next(t.Context())
		if err != nil {
			t.Fatalf("the generator stopped making ids: %v", err)
		}
		if snowflake.Worker(id) != w {
			t.Fatalf("the generator lost its number %d for %d", w, snowflake.Worker(id))
		}
	}
}
