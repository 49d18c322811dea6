package redlock_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis/redlock"
)

// TestDoExclusive runs work under Do from several clients at once: never
// more than one works at a time, each gets turns, and the others are told
// ErrNotAcquired.
func TestDoExclusive(t *testing.T) {
	servers := startServers(t, 3, false)
	var active, most, runs, busy atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		c := newClient(t, servers, redlock.Options{InstanceTimeout: 100 * time.Millisecond})
		wg.Go(func() {
			for range 30 {
				err := c.Do(t.Context(), "upkeep", time.Second, func(context.Context) error {
					n := active.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					runs.Add(1)
					time.Sleep(2 * time.Millisecond)
					active.Add(-1)
					return nil
				})
				if errors.Is(err, redlock.ErrNotAcquired) {
					busy.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 || runs.Load() == 0 || busy.Load() == 0 {
		t.Fatalf("at most %d ran at once, %d runs, %d refusals; want exactly one at a time", most.Load(), runs.Load(), busy.Load())
	}
}

// TestDoLongWork: work that outlasts many extensions of its lock is not
// cut off, its error comes back, and the lock is released at the end
// (run with -race: unlocking waits for the extender).
func TestDoLongWork(t *testing.T) {
	servers := startServers(t, 3, false)
	// A TTL and instance timeout a loaded machine acquires within (a TTL
	// spent acquiring is not acquired).
	c := newClient(t, servers, redlock.Options{MaxExtensions: -1, InstanceTimeout: 250 * time.Millisecond})
	failed := errors.New("the work's own error")
	err := c.Do(t.Context(), "long", time.Second, func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(3 * time.Second): // 9 extensions' worth
			return failed
		}
	})
	if err != failed {
		t.Fatalf("long work: %v; want its own error", err)
	}
	for i, s := range servers {
		if n, err := s.do("EXISTS", "long"); err != nil || n != "0" {
			t.Fatalf("instance %d: EXISTS long = %s, %v after Do: not released", i, n, err)
		}
	}
}

// TestDoLost: the work is cancelled, with the loss as the cause, when its
// lock is taken away on a majority, when it can no longer be extended
// until it expires, and when its extensions run out; Do returns only
// once the work has.
func TestDoLost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		ttl   time.Duration // long enough to acquire on a loaded machine
		opts  redlock.Options
		cause func(servers []*server) // done to the servers once the work runs
		want  string
	}{
		// (an instance timeout of 100 ms failed the acquisition itself now
		// and then on a loaded machine, with the race detector on: the
		// cases that need no short timeout have a longer one)
		{"stolen", 3, time.Second, redlock.Options{MaxExtensions: -1, InstanceTimeout: 400 * time.Millisecond}, func(servers []*server) {
			for _, s := range servers[:2] {
				s.do("DEL", "job")
			}
		}, " of 3 instances no longer hold it"}, // 2, or 3 if the third expired meanwhile on a loaded machine
		{"expired", 1, 300 * time.Millisecond, redlock.Options{MaxExtensions: -1, InstanceTimeout: 100 * time.Millisecond}, func(servers []*server) {
			servers[0].do("CLIENT", "PAUSE", "2000", "ALL")
		}, "its validity ended"},
		{"extensions used up", 3, 600 * time.Millisecond, redlock.Options{MaxExtensions: 2, InstanceTimeout: 300 * time.Millisecond}, func([]*server) {}, "it expired after 2 extensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := startServers(t, tc.n, false)
			c := newClient(t, servers, tc.opts)
			var cause error
			returned := false
			start := time.Now()
			err := c.Do(t.Context(), "job", tc.ttl, func(ctx context.Context) error {
				tc.cause(servers)
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
				}
				cause = context.Cause(ctx)
				time.Sleep(50 * time.Millisecond) // Do must wait for this
				returned = true
				return ctx.Err()
			})
			if !returned || !errors.Is(err, redlock.ErrLost) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Do: %v (work returned: %v); want ErrLost, %q, and the work's error", err, returned, tc.want)
			}
			if !errors.Is(cause, redlock.ErrLost) {
				t.Fatalf("the work's context was cancelled with %v; want ErrLost", cause)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("the loss took %v to stop the work", d)
			}
		})
	}
}

// TestDoNotAcquired: Do does not run the work when the lock is held
// elsewhere.
func TestDoNotAcquired(t *testing.T) {
	servers := startServers(t, 1, false)
	c := newClient(t, servers, redlock.Options{})
	l, err := c.Lock(t.Context(), "held", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(context.Background())
	ran := false
	if err := c.Do(t.Context(), "held", time.Second, func(context.Context) error { ran = true; return nil }); !errors.Is(err, redlock.ErrNotAcquired) || ran {
		t.Fatalf("Do on a held lock: %v, ran %v; want ErrNotAcquired without running", err, ran)
	}
}
