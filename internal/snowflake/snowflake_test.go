package snowflake

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retwis/retwis/internal/testkit/must"
)

// clock is a settable clock for the generator.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func TestLayout(t *testing.T) {
	t.Parallel()
	g, err := New(37)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2095, 6, 1, 12, 0, 0, 123e6, time.UTC)
	g.now = func() time.Time { return at }
	id, err := g.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if id >= 1<<53 || float64(id) != float64(id+0) || int64(float64(id)) != id {
		t.Fatalf("id %d does not fit a double exactly", id)
	}
	if !Time(id).Equal(at) || Worker(id) != 37 {
		t.Fatalf("id %d: time %v worker %d; want %v and 37", id, Time(id), Worker(id), at)
	}
	if First(at) > id || First(at.Add(time.Millisecond)) <= id {
		t.Fatalf("First(%v) = %d does not bound id %d", at, First(at), id)
	}
	if !Time(12345).IsZero() {
		t.Fatal("a counter id has no time")
	}
	if First(time.Now()) < 1<<40 {
		t.Fatal("ids must be far above counter ids")
	}
}

func TestUniqueAndIncreasing(t *testing.T) {
	t.Parallel()
	g := must.Value(New(1))(t)
	h := must.Value(New(2))(t)
	const n = 20000
	ids := make(chan int64, 2*n)
	var wg sync.WaitGroup
	for _, gen := range []*Generator{g, h} {
		for range 4 {
			wg.Go(func() {
				var last int64
				for range n / 4 {
					id, err := gen.Next(t.Context())
					if err != nil {
						t.Error(err)
						return
					}
					if id <= last {
						t.Errorf("id %d after %d from one goroutine", id, last)
					}
					last = id
					ids <- id
				}
			})
		}
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %d issued twice", id)
		}
		seen[id] = true
	}
}

func TestSpentMillisecondWaits(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) { // time.After, where Next waits, in a bubble
		c := &clock{t: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
		g := must.Value(New(5))(t)
		g.now = c.now
		for i := range 64 {
			if id, err := g.Next(t.Context()); err != nil || id&seqMask != int64(i) {
				t.Fatalf("id %d: %d, %v", i, id, err)
			}
		}
		type result struct {
			id  int64
			err error
		}
		done := make(chan result, 1)
		go func() {
			id, err := g.Next(t.Context())
			done <- result{id, err}
		}()
		synctest.Wait() // until Next waits for the clock
		select {
		case r := <-done:
			t.Fatalf("the 65th id of a millisecond was issued at once: %d, %v", r.id, r.err)
		default:
		}
		c.set(c.now().Add(time.Millisecond))
		if r := <-done; r.err != nil || !Time(r.id).Equal(c.now()) || r.id&seqMask != 0 {
			t.Fatalf("after the clock moved on: %d, %v", r.id, r.err)
		}
	})
}

func TestClockBack(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := must.Value(New(5))(t)
	g.now = c.now
	first := must.Value(g.Next(t.Context()))(t)
	c.set(c.now().Add(-2 * time.Second))
	if _, err := g.Next(t.Context()); err == nil {
		t.Fatal("a clock two seconds back must be refused, not waited out")
	}
	c.set(c.now().Add(2 * time.Second))
	if id, err := g.Next(t.Context()); err != nil || id <= first {
		t.Fatalf("back on time: %d, %v (first %d)", id, err, first)
	}
}

func TestLeaseEnd(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	g := must.Value(New(0))(t)
	g.now = c.now
	if err := g.SetWorker(9, c.now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if id, err := g.Next(t.Context()); err != nil || Worker(id) != 9 {
		t.Fatalf("within the lease: %d, %v", id, err)
	}
	c.set(c.now().Add(time.Second))
	if _, err := g.Next(t.Context()); err != ErrNoLease {
		t.Fatalf("after the lease: %v; want ErrNoLease", err)
	}
	if err := g.SetWorker(Workers, time.Time{}); err == nil {
		t.Fatal("worker number out of range accepted")
	}
}
