package password

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The tests of the Hasher run in a synctest bubble: its clock moves only
// when every goroutine in it waits, so "refused at once" is exact
// (time.Since(start) == 0), MaxWait passes without being waited for,
// synctest.Wait tells when every request has queued, and the bubble
// fails the test if a goroutine is left blocked when it ends (a request
// that never got its hasher, nor gave up: a leak).

// cheap keeps the tests fast; the algorithm is the same.
var cheap = Params{Memory: 64, Time: 1, Threads: 1}

func newTestHasher(t *testing.T, hashers int) *Hasher {
	t.Helper()
	h, err := NewHasher(cheap, hashers)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// line records the order in which requests got a hasher.
type line struct {
	mu     sync.Mutex
	served []string
	// gate, if not nil, is what a request that got a hasher waits for
	// before it gives the hasher back.
	gate chan struct{}
	// known are the clients that are known (WithKnownClient).
	known map[string]bool
}

// take waits for a hasher for client who, notes who, and gives the
// hasher back (once the gate opens, with one): with one hasher, or with
// a gate, the names are in the order of service.
func (l *line) take(ctx context.Context, h *Hasher, who string) error {
	with := WithClient
	if l.known[who] {
		with = WithKnownClient
	}
	if err := h.acquire(with(ctx, who)); err != nil {
		return err
	}
	l.mu.Lock()
	l.served = append(l.served, who)
	l.mu.Unlock()
	if l.gate != nil {
		<-l.gate
	}
	h.release()
	return nil
}

// sofar returns the names noted so far.
func (l *line) sofar() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.served)
}

// send starts n requests of client who on wg, each expecting a hasher,
// and waits until they are all waiting.
func (l *line) send(t *testing.T, ctx context.Context, h *Hasher, wg *sync.WaitGroup, who string, n int) {
	for range n {
		wg.Go(func() {
			if err := l.take(ctx, h, who); err != nil {
				t.Errorf("%s: %v", who, err)
			}
		})
	}
	synctest.Wait()
}

func (l *line) check(t *testing.T, want ...string) {
	t.Helper()
	if !slices.Equal(l.served, want) {
		t.Errorf("served %v; want %v", l.served, want)
	}
}

// hold takes a hasher for the test, as if somebody were hashing.
func hold(t *testing.T, h *Hasher) {
	t.Helper()
	if err := h.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// assertIdle checks that no hasher is taken and nothing waits.
func assertIdle(t *testing.T, h *Hasher) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, l := range h.lanes {
		if len(l.queues) != 0 || l.turns.Len() != 0 {
			t.Errorf("idle hasher: lane %d has %d clients waiting, %d turns", i, len(l.queues), l.turns.Len())
		}
	}
	if h.running != 0 {
		t.Errorf("idle hasher: %d running", h.running)
	}
}

// TestHasherFlood: on one hasher, a flood of requests from one client
// queues three and has the rest refused at once; another client's
// request that came after them is served after one of the flood's.
func TestHasherFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hold(t, h)
		start := time.Now()
		var l line
		var wg sync.WaitGroup
		var mu sync.Mutex
		refused := 0
		for range 50 {
			wg.Go(func() {
				err := l.take(t.Context(), h, "A")
				if errors.Is(err, ErrBusy) && time.Since(start) == 0 {
					mu.Lock()
					refused++
					mu.Unlock()
				} else if err != nil {
					t.Errorf("A: %v after %v", err, time.Since(start))
				}
			})
		}
		synctest.Wait()
		if refused != 50-perClient {
			t.Errorf("%d of the flood refused at once; want %d", refused, 50-perClient)
		}
		l.send(t, t.Context(), h, &wg, "B", 1)
		h.release()
		wg.Wait()
		l.check(t, "A", "B", "A", "A")
		assertIdle(t, h)
	})
}

// TestHasherFloodVerify is TestHasherFlood through Verify, argon2id and
// all: the flood's queued guesses are checked and wrong, its excess
// refused at once, and the other client's right password is checked.
func TestHasherFloodVerify(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hash, err := h.Hash(t.Context(), "secret")
		if err != nil {
			t.Fatal(err)
		}
		hold(t, h)
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{}
		verify := func(who, pass string) {
			ok, err := h.Verify(WithClient(t.Context(), who), pass, hash)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, ErrBusy) && time.Since(start) == 0:
				outcomes[who+" refused"]++
			case err != nil:
				t.Errorf("%s: %v", who, err)
			default:
				outcomes[who+" "+map[bool]string{true: "right", false: "wrong"}[ok]]++
			}
		}
		for range 100 {
			wg.Go(func() { verify("198.51.100.7", "guess") })
		}
		synctest.Wait()
		wg.Go(func() { verify("203.0.113.9", "secret") })
		synctest.Wait()
		h.release()
		wg.Wait()
		want := map[string]int{"198.51.100.7 refused": 100 - perClient, "198.51.100.7 wrong": perClient, "203.0.113.9 right": 1}
		for k, n := range want {
			if outcomes[k] != n {
				t.Errorf("%s: %d; want %d (all: %v)", k, outcomes[k], n, outcomes)
			}
		}
		assertIdle(t, h)
	})
}

// TestHasherRoundRobin: the clients waiting take turns, in the order
// they began to wait, one request each.
func TestHasherRoundRobin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hold(t, h)
		var l line
		var wg sync.WaitGroup
		for _, who := range []string{"A", "B", "C"} {
			l.send(t, t.Context(), h, &wg, who, 3)
		}
		h.release()
		wg.Wait()
		l.check(t, "A", "B", "C", "A", "B", "C", "A", "B", "C")
		assertIdle(t, h)
	})
}

// TestHasherTwoHashers: with two hashers a client may use both while
// nobody else waits; another client that comes then gets the second of
// the next two that come free (the first goes to the client whose turn
// was first).
//
// The requests served hold their hashers until the gate opens: with two
// hashers, a request served could otherwise run, give its hasher back
// and have it handed on before another request served earlier ran at
// all, so the order in which the served requests ran would not be the
// order in which they were served.
func TestHasherTwoHashers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 2)
		hold(t, h)
		hold(t, h)
		l := line{gate: make(chan struct{})}
		var wg sync.WaitGroup
		l.send(t, t.Context(), h, &wg, "A", 3)
		l.send(t, t.Context(), h, &wg, "B", 1)
		h.release()
		synctest.Wait()
		if got := l.sofar(); !slices.Equal(got, []string{"A"}) {
			t.Errorf("served %v after a hasher came free; want A, whose turn was first", got)
		}
		h.release()
		synctest.Wait()
		if got := l.sofar(); !slices.Equal(got, []string{"A", "B"}) {
			t.Errorf("served %v after two hashers came free; want B among the first two", got)
		}
		close(l.gate)
		wg.Wait()
		l.check(t, "A", "B", "A", "A")
		assertIdle(t, h)
	})
}

// TestHasherCancel: a request whose context ends while it waits gets
// ErrBusy and leaves its queue: its client may queue again, the others
// keep their turns, and no hasher is lost.
func TestHasherCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hold(t, h)
		var l line
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(t.Context())
		for range perClient {
			wg.Go(func() {
				if err := l.take(ctx, h, "A"); !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
					t.Errorf("canceled while waiting: %v; want ErrBusy and Canceled", err)
				}
			})
		}
		synctest.Wait()
		if err := l.take(t.Context(), h, "A"); !errors.Is(err, errQueueFull) {
			t.Fatalf("a 4th request of A: %v; want ErrBusy at once", err)
		}
		l.send(t, t.Context(), h, &wg, "B", 1)
		cancel()
		synctest.Wait()
		l.send(t, t.Context(), h, &wg, "A", 1) // A's queue has room again, behind B
		h.release()
		wg.Wait()
		l.check(t, "B", "A")
		assertIdle(t, h)
	})
}

// TestHasherTimeout: a request that waited MaxWait gets ErrBusy.
func TestHasherTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hold(t, h)
		start := time.Now()
		_, err := h.Hash(WithClient(t.Context(), "A"), "secret")
		if !errors.Is(err, ErrBusy) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != MaxWait {
			t.Errorf("Hash with the hasher taken: %v after %v; want ErrBusy after %v", err, time.Since(start), MaxWait)
		}
		h.release()
		assertIdle(t, h)
	})
}

// TestHasherCancelGiven: a request canceled just as it is given a
// hasher either uses it or hands it on; either way none is lost.
func TestHasherCancelGiven(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		hold(t, h)
		var l line
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(t.Context())
		wg.Go(func() { _ = l.take(ctx, h, "A") }) // served or canceled: both are right
		synctest.Wait()
		l.send(t, t.Context(), h, &wg, "B", 1)
		h.release() // to A…
		cancel()    // …which may see its cancellation first
		wg.Wait()
		if !slices.Contains(l.served, "B") {
			t.Errorf("served %v; B is missing", l.served)
		}
		assertIdle(t, h)
	})
}

// TestHasherCrowded: beyond the bound on waiting clients a new client is
// refused at once; the anonymous client (no WithClient) is bound by
// neither limit.
func TestHasherCrowded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		h.maxClients = 2
		hold(t, h)
		var l line
		var wg sync.WaitGroup
		l.send(t, t.Context(), h, &wg, "A", 1)
		l.send(t, t.Context(), h, &wg, "B", 1)
		if err := l.take(t.Context(), h, "C"); !errors.Is(err, errCrowded) {
			t.Fatalf("a 3rd client: %v; want ErrBusy at once", err)
		}
		for range 2 * perClient {
			wg.Go(func() {
				if err := h.acquire(t.Context()); err != nil {
					t.Errorf("anonymous: %v", err)
					return
				}
				h.release()
			})
		}
		synctest.Wait()
		h.release()
		wg.Wait()
		l.check(t, "A", "B")
		assertIdle(t, h)
	})
}

// TestHasherKnownLane: known clients wait in a lane of their own, which
// takes every other hasher while both lanes wait: a known client that
// comes behind a flood of unknown ones, each with its queue full, is
// served after one of them; the unknown lane's bound on clients waiting
// does not hold up a known client, and known clients take turns too.
func TestHasherKnownLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newTestHasher(t, 1)
		h.maxClients = 3
		hold(t, h)
		l := line{known: map[string]bool{"K": true, "L": true}}
		var wg sync.WaitGroup
		for _, who := range []string{"A", "B", "C"} {
			l.send(t, t.Context(), h, &wg, who, perClient)
		}
		if err := l.take(t.Context(), h, "D"); !errors.Is(err, errCrowded) {
			t.Fatalf("a 4th unknown client: %v; want ErrBusy at once", err)
		}
		l.send(t, t.Context(), h, &wg, "K", 2)
		l.send(t, t.Context(), h, &wg, "L", 1)
		if unknown, known := h.Waiting(); unknown != 3*perClient || known != 3 {
			t.Errorf("waiting: %d unknown, %d known; want %d and 3", unknown, known, 3*perClient)
		}
		h.release()
		wg.Wait()
		l.check(t, "K", "A", "L", "B", "K", "C", "A", "B", "C", "A", "B", "C")
		assertIdle(t, h)
	})
}

// TestHasherVerify: Verify checks passwords, and against the dummy hash
// with none; a canceled caller with every hasher taken is told busy.
func TestHasherVerify(t *testing.T) {
	h := newTestHasher(t, 1)
	hash, err := h.Hash(t.Context(), "secret")
	if err != nil {
		t.Fatal(err)
	}
	hold(t, h)
	if h.InProgress() != 1 {
		t.Fatalf("InProgress = %d; want 1", h.InProgress())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Verify(ctx, "secret", hash); !errors.Is(err, ErrBusy) {
		t.Fatalf("Verify with every hasher taken = %v; want ErrBusy", err)
	}
	h.release()
	for _, tc := range []struct {
		pass, hash string
		want       bool
	}{{"secret", hash, true}, {"wrong", hash, false}, {"secret", "", false}} {
		if ok, err := h.Verify(t.Context(), tc.pass, tc.hash); err != nil || ok != tc.want {
			t.Errorf("Verify(%q, %q) = %v, %v; want %v", tc.pass, tc.hash, ok, err, tc.want)
		}
	}
	assertIdle(t, h)
}

// BenchmarkHasherTurns measures what the scheduler costs a hash,
// without the hash: a hasher taken and given back with nobody waiting
// (free), and handed from client to client by 8 clients of 3 goroutines
// each on one hasher, each yielding the processor while it holds the
// hasher, so that the others queue (turns: a wake-up of the next
// goroutine in each).
func BenchmarkHasherTurns(b *testing.B) {
	h, err := NewHasher(cheap, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("free", func(b *testing.B) {
		for b.Loop() {
			if err := h.acquire(b.Context()); err != nil {
				b.Fatal(err)
			}
			h.release()
		}
	})
	b.Run("turns", func(b *testing.B) {
		var next atomic.Int64
		next.Store(int64(b.N))
		var wg sync.WaitGroup
		for i := range 8 * perClient {
			ctx := WithClient(b.Context(), strconv.Itoa(i%8))
			wg.Go(func() {
				for next.Add(-1) >= 0 {
					if err := h.acquire(ctx); err != nil {
						b.Error(err)
						return
					}
					runtime.Gosched() // the others queue meanwhile
					h.release()
				}
			})
		}
		wg.Wait()
	})
}
