// Package storetest gives tests a store on a real Redis and runs
// retwis's background work in tests: a delivery worker like the one
// every `retwis serve` runs, and a way to wait for it; a Fixture for
// the tests of the packages that work on the store from outside, and a
// whole consistency check (Check).
package storetest

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/kernel"
)

// Cheap is a password hashing cost that keeps tests fast; the algorithm
// is the same.
var Cheap = password.Params{Memory: 64, Time: 1, Threads: 1}

// CommandTimeout is the Redis command timeout of test stores unless their
// options say otherwise: the race detector and the test suites sharing
// two cores can hold a command up for more than a production second. A
// test store's client gives a node as long to answer at all (see
// redisconn.Options.NodeTimeout) as its store gives a command.
const CommandTimeout = 10 * time.Second

// Counting is a client that counts its round trips to Redis: a call
// counts unless the client-side cache answered all of it. Tests of how
// many round trips a page costs read Calls before and after.
type Counting struct {
	rueidis.Client
	Calls atomic.Int64
	// Lookups counts the calls of the client-side cache (DoCache and
	// DoMultiCache), answered by it or not; Keys the reads they asked.
	Lookups, Keys atomic.Int64
}

// Do implements rueidis.Client.
func (c *Counting) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.Calls.Add(1)
	return c.Client.Do(ctx, cmd)
}

// DoMulti implements rueidis.Client.
func (c *Counting) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.Calls.Add(1)
	return c.Client.DoMulti(ctx, cmds...)
}

// DoCache counts a round trip unless the client-side cache answered.
func (c *Counting) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	c.Lookups.Add(1)
	c.Keys.Add(1)
	r := c.Client.DoCache(ctx, cmd, ttl)
	if !r.IsCacheHit() {
		c.Calls.Add(1)
	}
	return r
}

// DoMultiCache counts a round trip unless the cache answered every read.
func (c *Counting) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	c.Lookups.Add(1)
	c.Keys.Add(int64(len(cmds)))
	res := c.Client.DoMultiCache(ctx, cmds...)
	for _, r := range res {
		if !r.IsCacheHit() {
			c.Calls.Add(1)
			break
		}
	}
	return res
}

// Open returns a Store on the Redis at url, closed when the test ends.
// Unless opts say otherwise, it hashes passwords cheaply, logs nowhere
// and waits up to CommandTimeout for a command, and as long for a node
// to answer.
func Open(t testing.TB, url string, opts store.Options) *store.Store {
	t.Helper()
	st, _ := OpenCounting(t, url, opts)
	return st
}

// OpenCounting is Open, and returns the store's client, which counts
// the round trips the store makes.
func OpenCounting(t testing.TB, url string, opts store.Options) (*store.Store, *Counting) {
	t.Helper()
	if opts.Password == (password.Params{}) {
		opts.Password = Cheap
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.CommandTimeout == 0 {
		opts.CommandTimeout = CommandTimeout
	}
	if opts.Invalidations == nil { // memos on, as a server has them
		opts.Invalidations = new(kernel.Invalidations)
	}
	c, err := redisconn.DialWith(url, redisconn.Options{NodeTimeout: opts.CommandTimeout, Invalidations: opts.Invalidations})
	if err != nil {
		t.Fatal(err)
	}
	counting := &Counting{Client: c}
	st, err := store.New(counting, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, counting
}

// StartWorker runs a delivery worker against the Redis at url, with its
// own client (so that it does not disturb what a test counts), until the
// test ends.
func StartWorker(t testing.TB, url string, opts store.Options) {
	t.Helper()
	opts.Log = nil
	w := Open(t, url, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A short claim idle: a job whose acknowledgement a failover lost
		// stays pending with this worker, which takes it up again after
		// the claim idle (30s by default, longer than tests wait).
		delivery.New(w, delivery.Options{Consumer: "test-worker", Block: 20 * time.Millisecond, ClaimIdle: 2 * time.Second}).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// Drain waits until every queued delivery job has been carried out.
func Drain(t testing.TB, st *store.Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := st.DeliveryBacklog(t.Context())
		if err == nil && n == 0 {
			if _, err := st.RefreshStale(t.Context()); err != nil { // as maintenance does
				t.Fatalf("refreshing the directory: %v", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery jobs were not carried out (%d left, %v)", n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
