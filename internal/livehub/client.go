package livehub

import (
	"cmp"
	"context"
	"sync"

	"github.com/retwis/retwis/internal/store/posts"
)

// Message is an event of one of a client's streams. Every client of the
// stream gets the same Message: it must not be changed.
type Message struct {
	Stream posts.Stream
	Event  posts.Event
}

// Client is one subscriber (an HTTP stream, a WebSocket connection): the
// events of its streams, in the order each stream sent them, through one
// bounded buffer.
type Client struct {
	hub    *Hub
	events chan *Message
	ctx    context.Context // ends with the client
	cancel context.CancelFunc
	feeds  map[posts.Stream]*feed // guarded by hub.mu

	mu     sync.Mutex // guards ended and err, and orders sends on events before its close
	ended  bool
	err    error
	closed sync.Once
}

// Events returns the client's events. It is closed, after the events it
// still holds, when the client ends.
func (c *Client) Events() <-chan *Message { return c.events }

// Done is closed when the client ends: dropped by the Hub (see Err) or
// closed by its owner. An owner stops there, without reading the events
// left.
func (c *Client) Done() <-chan struct{} { return c.ctx.Done() }

// Context returns a context that ends when the client does, for the
// writes to its connection: a write blocked on a client that takes
// nothing is abandoned as soon as the Hub drops the client.
func (c *Client) Context() context.Context { return c.ctx }

// Err says why the Hub ended the client: ErrSlow or ErrClosed; nil while
// it runs, or if its owner closed it first.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Subscribe adds st to the client's streams and returns once it is
// listened to (at once if another client had it already): no event sent
// after Subscribe returns is missed. If ctx ends first, or the stream's
// listener fails before it ever listened (Redis is away), the client
// does not keep st.
func (c *Client) Subscribe(ctx context.Context, st posts.Stream) error {
	if st == (posts.Stream{}) {
		return ErrNoStream
	}
	if c.ctx.Err() != nil {
		return cmp.Or(c.Err(), ErrClosed)
	}
	f, err := c.hub.subscribe(c, st)
	if err != nil {
		return err
	}
	select {
	case <-f.ready:
		return nil
	case <-c.ctx.Done():
		return cmp.Or(c.Err(), ErrClosed)
	case <-f.failed:
		if err = f.failure(); err == nil {
			return nil // it listens now
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.hub.unsubscribe(c, st)
	return err
}

// Unsubscribe takes st off the client's streams.
func (c *Client) Unsubscribe(st posts.Stream) { c.hub.unsubscribe(c, st) }

// Close ends the client and takes it off its streams: the last client
// of a stream stops its listener.
func (c *Client) Close() {
	c.closed.Do(func() {
		c.end(nil)
		c.hub.mu.Lock()
		streams := make([]posts.Stream, 0, len(c.feeds))
		for st := range c.feeds {
			streams = append(streams, st)
		}
		c.hub.mu.Unlock()
		for _, st := range streams {
			c.hub.unsubscribe(c, st)
		}
		c.hub.forget(c)
		c.hub.live.Done()
	})
}

// deliver hands m to the client, or drops the client if its buffer is
// full.
func (c *Client) deliver(m *Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	select {
	case c.events <- m:
	default:
		c.endLocked(ErrSlow)
	}
}

// end ends the client for the reason err (nil: its owner's Close).
func (c *Client) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

func (c *Client) endLocked(err error) {
	if c.ended {
		return
	}
	c.ended, c.err = true, err
	close(c.events)
	c.cancel()
}

// feed is one stream listened to, and its clients.
type feed struct {
	stream posts.Stream
	cancel context.CancelFunc
	done   chan struct{} // closed when its listener has returned
	ready  chan struct{} // closed once it listens
	failed chan struct{} // closed if it failed before it ever listened

	mu        sync.Mutex // guards clients, listening and err
	clients   map[*Client]struct{}
	listening bool
	err       error // why it failed, until it listens
}

// add adds a client.
func (f *feed) add(c *Client) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clients[c] = struct{}{}
}

// remove takes a client off and returns how many are left.
func (f *feed) remove(c *Client) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.clients, c)
	return len(f.clients)
}

// fail records that the listener failed with err, if it never listened.
func (f *feed) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.listening && f.err == nil {
		f.err = cmp.Or(err, ErrClosed)
		close(f.failed)
	}
}

// failure returns why the listener failed, or nil if it listens now.
func (f *feed) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listening {
		return nil
	}
	return f.err
}

// dispatch hands an event of the listener to every client. It runs on
// the Redis connection's reader, so it never blocks: a client whose
// buffer is full is dropped instead.
func (f *feed) dispatch(ev posts.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev.Kind == posts.Listening {
		if !f.listening {
			f.listening, f.err = true, nil
			close(f.ready)
		}
		return
	}
	m := &Message{Stream: f.stream, Event: ev}
	for c := range f.clients {
		c.deliver(m)
	}
}
