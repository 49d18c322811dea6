// Package livehub shares a process's live events among its clients. A
// Hub listens to each stream (posts.Stream: a user's, a tag's, the public
// one) once, however many clients follow it: the first client of a
// stream starts its listener (store.Listen, on Redis's sharded pub/sub),
// the last one to leave stops it, and a listener whose connection fails
// listens again after a backoff. Each client gets the events of its
// streams through a bounded buffer: a client that falls that far behind
// is dropped (its Events channel closed, Err saying why), so that a slow
// reader can neither hold memory without bound nor slow the others.
//
// The Hub knows nothing of HTTP: internal/streaming turns its clients
// into Server-Sent Events and WebSocket connections.
package livehub

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/store/posts"
)

// Why a client ended, as Client.Err says.
var (
	// ErrSlow ends a client whose buffer was full: it did not keep up.
	ErrSlow = errors.New("livehub: the client fell too far behind its stream")
	// ErrClosed ends the clients of a closed Hub, and refuses new ones.
	ErrClosed = errors.New("livehub: the server is shutting down")
	// ErrNoStream refuses the zero Stream (a tag that folds to nothing).
	ErrNoStream = errors.New("livehub: there is no such stream")
)

// Defaults of Options.
const (
	DefaultBuffer     = 256
	DefaultBackoff    = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
)

// ListenFunc subscribes to a stream, calling fn with its events until
// ctx ends: (*store.Store).Listen.
type ListenFunc func(ctx context.Context, st posts.Stream, fn func(posts.Event)) error

// Options configure a Hub.
type Options struct {
	// Listen subscribes to a stream. Required.
	Listen ListenFunc
	// Buffer is how many events a client may be behind; one more and it
	// is dropped with ErrSlow. Zero means DefaultBuffer.
	Buffer int
	// Backoff is the wait before listening again after a listener ended
	// on its own (the connection failed); it doubles up to MaxBackoff
	// while listening keeps failing. Zeros mean the defaults.
	Backoff, MaxBackoff time.Duration
	// Log receives the listeners' failures; nil means slog.Default().
	Log *slog.Logger
}

// Hub multiplexes the clients of one process onto one listener per
// stream. It is safe for concurrent use.
type Hub struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	closed   bool
	feeds    map[posts.Stream]*feed         // the streams listened to
	stopping map[posts.Stream]chan struct{} // listeners ending: a new one waits for them
	clients  map[*Client]struct{}           // every client not yet closed by its owner
	running  sync.WaitGroup                 // listener goroutines
	live     sync.WaitGroup                 // clients not yet closed by their owners
}

// New returns a Hub.
func New(opts Options) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxBackoff < opts.Backoff {
		opts.MaxBackoff = max(DefaultMaxBackoff, opts.Backoff)
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	return &Hub{
		opts: opts, log: log, feeds: map[posts.Stream]*feed{},
		stopping: map[posts.Stream]chan struct{}{}, clients: map[*Client]struct{}{},
	}
}

// Client returns a new client with no stream yet. Its owner must Close
// it. A closed Hub refuses with ErrClosed.
func (h *Hub) Client() (*Client, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		hub: h, events: make(chan *Message, h.opts.Buffer), ctx: ctx, cancel: cancel,
		feeds: map[posts.Stream]*feed{},
	}
	h.clients[c] = struct{}{}
	h.live.Add(1)
	return c, nil
}

// Streams returns how many streams the Hub listens to: the channels it
// subscribes on Redis.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.feeds)
}

// Close ends every client with ErrClosed, so that their owners return,
// refuses new ones, stops the listeners, and waits until the owners
// have closed their clients and the listeners have unsubscribed.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	for _, f := range h.feeds {
		f.cancel()
	}
	clients := make([]*Client, 0, len(h.clients))
	for c := range h.clients {
		clients = append(clients, c)
	}
	h.mu.Unlock()
	for _, c := range clients {
		c.end(ErrClosed)
	}
	h.live.Wait()
	h.running.Wait()
}

// subscribe adds c to the feed of st, starting it if c is its first
// client, and returns the feed.
func (h *Hub) subscribe(c *Client, st posts.Stream) (*feed, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if f := c.feeds[st]; f != nil {
		return f, nil
	}
	f := h.feeds[st]
	if f == nil {
		f = h.start(st)
	}
	f.add(c)
	c.feeds[st] = f
	return f, nil
}

// unsubscribe takes c off its feed of st, stopping the feed if c was
// its last client.
func (h *Hub) unsubscribe(c *Client, st posts.Stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := c.feeds[st]
	if f == nil {
		return
	}
	delete(c.feeds, st)
	if f.remove(c) == 0 && h.feeds[st] == f {
		delete(h.feeds, st)
		h.stopping[st] = f.done
		f.cancel()
	}
}

// forget drops a client its owner closed, once it has left its feeds.
func (h *Hub) forget(c *Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, c)
}

// start starts the feed of st; h.mu is held.
func (h *Hub) start(st posts.Stream) *feed {
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{stream: st, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{}),
		failed: make(chan struct{}), clients: map[*Client]struct{}{}}
	h.feeds[st] = f
	prev := h.stopping[st]
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		defer h.retire(f)
		if prev != nil {
			<-prev // its unsubscription must not undo ours
		}
		h.listen(ctx, f)
	}()
	return f
}

// retire marks f's listener ended.
func (h *Hub) retire(f *feed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(f.done)
	if h.stopping[f.stream] == f.done {
		delete(h.stopping, f.stream)
	}
}

// listen runs f's listener until ctx ends, listening again, after a
// growing backoff, whenever it ends on its own.
func (h *Hub) listen(ctx context.Context, f *feed) {
	wait := h.opts.Backoff
	for ctx.Err() == nil {
		start := time.Now()
		err := h.opts.Listen(ctx, f.stream, f.dispatch)
		if ctx.Err() != nil {
			return
		}
		f.fail(err)
		if time.Since(start) > h.opts.MaxBackoff {
			wait = h.opts.Backoff // it listened for a while: not a failing connection
		}
		h.log.Warn("live stream interrupted; listening again", "in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, h.opts.MaxBackoff)
	}
}
