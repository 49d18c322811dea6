package livehub_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/store/posts"
)

// The tests here run a Hub in a synctest bubble, where its clock moves
// only when every goroutine waits: the backoff before listening again
// and Close's wait for the owners are checked exactly, with neither
// sleeps nor wall-clock bounds. A bubble cannot reach Redis, so the
// Hub listens through a bus, in the process, as it does through
// store.Listen on Redis (hub_test.go's tests).

// errLost is how a bus listener ends when its "connection" is cut.
var errLost = retwis.Errorf(retwis.Unavailable, "The connection to the database was lost.")

// bus is a pub/sub in the process, for the Hub's Options.Listen: a
// listener confirms with a Listening event, is given what publish sends
// to its stream, and returns when its context ends (ctx.Err()) or when
// cut ends it as a failed connection would (errLost).
type bus struct {
	starts chan time.Time // when each listener began, once it listens or failed

	mu      sync.Mutex
	down    error // if not nil, listeners fail with it at once: Redis is away
	streams map[posts.Stream]*busListener
	running int // listeners not returned
}

// busListener is one listener of a bus.
type busListener struct {
	fn  func(posts.Event)
	cut chan struct{}
}

func newBus() *bus {
	return &bus{starts: make(chan time.Time, 100), streams: map[posts.Stream]*busListener{}}
}

// newBusHub returns a Hub listening on a new bus, closed with the test.
func newBusHub(t *testing.T, opts livehub.Options) (*bus, *livehub.Hub) {
	b := newBus()
	opts.Listen, opts.Log = b.listen, quiet
	hub := livehub.New(opts)
	t.Cleanup(hub.Close)
	return b, hub
}

// listen is the bus's ListenFunc.
func (b *bus) listen(ctx context.Context, st posts.Stream, fn func(posts.Event)) error {
	start := time.Now()
	l, err := b.subscribe(st, fn)
	b.starts <- start
	if err != nil {
		return err
	}
	defer b.unsubscribe(st, l)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-l.cut:
		return errLost
	}
}

// subscribe adds a listener of st and confirms it, or fails while the
// bus is down; a listener that it returns must be unsubscribed.
func (b *bus) subscribe(st posts.Stream, fn func(posts.Event)) (*busListener, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down != nil {
		return nil, b.down
	}
	l := &busListener{fn: fn, cut: make(chan struct{})}
	b.streams[st] = l
	b.running++
	fn(posts.Event{Kind: posts.Listening})
	return l, nil
}

func (b *bus) unsubscribe(st posts.Stream, l *busListener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.streams[st] == l {
		delete(b.streams, st)
	}
	b.running--
}

// setDown makes the listeners that start fail with err; nil: they
// listen again.
func (b *bus) setDown(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down = err
}

// listeners returns how many listeners run.
func (b *bus) listeners() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running
}

// cut ends the listener of st as a failed connection would.
func (b *bus) cut(t *testing.T, st posts.Stream) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.streams[st]
	if l == nil {
		t.Fatalf("no listener of %v to cut", st)
	}
	delete(b.streams, st)
	close(l.cut)
}

// publish sends the update of post id to the listener of st, as
// SPUBLISH would, returning the post it is about.
func (b *bus) publish(t *testing.T, st posts.Stream, id int64) retwis.Post {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.streams[st]
	if l == nil {
		t.Fatalf("no listener of %v to publish post %d to", st, id)
	}
	l.fn(posts.Event{Kind: "update", Post: id})
	return retwis.Post{ID: id}
}

// nextStart returns when the next listener began.
func (b *bus) nextStart() time.Time { return <-b.starts }

// TestBackoff: a listener that ends on its own is started again after
// the backoff, which doubles while listening keeps failing, up to
// MaxBackoff, and starts over after a listener that listened longer than
// MaxBackoff; the client goes on getting events without subscribing
// again.
func TestBackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const backoff, maxBackoff = 100 * time.Millisecond, 400 * time.Millisecond
		b, hub := newBusHub(t, livehub.Options{Backoff: backoff, MaxBackoff: maxBackoff})
		own := posts.UserStream(1)
		c := newClient(t, hub, own)
		b.nextStart()
		for i, want := range []time.Duration{backoff, 2 * backoff, 4 * backoff, maxBackoff, maxBackoff} {
			cut := time.Now()
			b.cut(t, own)
			if d := b.nextStart().Sub(cut); d != want {
				t.Errorf("cut %d: listened again after %v; want %v", i+1, d, want)
			}
			expectPost(t, c, own, b.publish(t, own, int64(i+1)))
		}
		time.Sleep(maxBackoff + time.Millisecond) // the bubble's clock: a listener that lasted
		cut := time.Now()
		b.cut(t, own)
		if d := b.nextStart().Sub(cut); d != backoff {
			t.Errorf("after listening for longer than MaxBackoff, listened again after %v; want %v", d, backoff)
		}
		expectPost(t, c, own, b.publish(t, own, 100))
	})
}

// TestCloseWaitsForOwners: Close ends every client (owners see Done and
// ErrClosed), and returns once their owners have closed them, at once,
// with no listener left; then it refuses new clients.
func TestCloseWaitsForOwners(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b, hub := newBusHub(t, livehub.Options{})
		gate := make(chan struct{}) // the owners take a moment to return
		var reasons [3]error
		var owners sync.WaitGroup
		for i := range reasons {
			c := newClient(t, hub)
			if i > 0 { // the first has no stream yet
				if err := c.Subscribe(t.Context(), posts.UserStream(1)); err != nil {
					t.Fatal(err)
				}
			}
			owners.Go(func() {
				<-c.Done()
				<-gate
				reasons[i] = c.Err()
				c.Close()
			})
		}
		closed := make(chan struct{})
		go func() { hub.Close(); close(closed) }()
		synctest.Wait()
		select {
		case <-closed:
			t.Error("Close returned before the owners closed their clients")
		default:
		}
		start := time.Now()
		close(gate)
		<-closed
		if d := time.Since(start); d != 0 {
			t.Errorf("Close returned %v after the owners closed their clients; want at once", d)
		}
		owners.Wait()
		for i, err := range reasons {
			if !errors.Is(err, livehub.ErrClosed) {
				t.Errorf("client %d ended with %v; want ErrClosed", i, err)
			}
		}
		if _, err := hub.Client(); !errors.Is(err, livehub.ErrClosed) {
			t.Errorf("Client after Close: %v", err)
		}
		if n := b.listeners(); n != 0 {
			t.Errorf("%d listeners still run after Close", n)
		}
	})
}

// TestSubscribeFailsAtOnce: while Redis is away, Subscribe fails as soon
// as the stream's listener does, with its error, rather than at the
// caller's deadline, and the listener stops, nobody wanting the stream;
// once Redis is back, subscribing works at once.
func TestSubscribeFailsAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b, hub := newBusHub(t, livehub.Options{})
		own := posts.UserStream(1)
		b.setDown(errLost)
		c := newClient(t, hub)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		if err := c.Subscribe(ctx, own); !errors.Is(err, errLost) || time.Since(start) != 0 {
			t.Fatalf("Subscribe with Redis away: %v after %v; want the listener's error at once", err, time.Since(start))
		}
		synctest.Wait()
		if n := len(b.starts); n != 1 {
			t.Errorf("%d listeners started for a stream nobody wants; want the one that failed", n)
		}
		b.setDown(nil)
		if err := c.Subscribe(ctx, own); err != nil || time.Since(start) != 0 {
			t.Fatalf("Subscribe with Redis back: %v after %v; want it at once", err, time.Since(start))
		}
		expectPost(t, c, own, b.publish(t, own, 1))
	})
}
