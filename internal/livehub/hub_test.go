package livehub_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// quiet discards what the store and the Hub log.
var quiet = slog.New(slog.DiscardHandler)

// env is a Hub on a real Redis, with a delivery worker so that posts
// reach their streams, counting the listeners it runs.
type env struct {
	st      *store.Store
	raw     rueidis.Client
	hub     *livehub.Hub
	listens atomic.Int64 // listeners running
	started atomic.Int64 // listeners ever started
	// cut ends the latest listener as a failed connection would.
	cut atomic.Pointer[context.CancelFunc]
}

func newEnv(t *testing.T, url string, opts livehub.Options) *env {
	t.Helper()
	e := &env{st: storetest.Open(t, url, store.Options{})}
	if err := e.st.Migrate(t.Context(), quiet); err != nil {
		t.Fatal(err)
	}
	storetest.StartWorker(t, url, store.Options{})
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	e.raw = raw
	opts.Listen = func(ctx context.Context, st posts.Stream, fn func(posts.Event)) error {
		e.listens.Add(1)
		e.started.Add(1)
		defer e.listens.Add(-1)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		e.cut.Store(&cancel)
		return e.st.Listen(ctx, st, fn)
	}
	opts.Log = quiet
	e.hub = livehub.New(opts)
	t.Cleanup(e.hub.Close)
	return e
}

// user signs up a user.
func (e *env) user(t *testing.T, name string) retwis.User {
	t.Helper()
	u, _, err := e.st.Register(t.Context(), name, "password1")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// post posts as author and waits until the post is delivered (its
// events sent).
func (e *env) post(t *testing.T, author retwis.User, text string) retwis.Post {
	t.Helper()
	p, err := e.st.CreatePost(t.Context(), author.ID, text)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Drain(t, e.st)
	return p
}

// client returns a client subscribed to streams, closed with the test.
func (e *env) client(t *testing.T, streams ...posts.Stream) *livehub.Client {
	t.Helper()
	return newClient(t, e.hub, streams...)
}

// newClient returns a client of hub subscribed to streams, closed with
// the test.
func newClient(t *testing.T, hub *livehub.Hub, streams ...posts.Stream) *livehub.Client {
	t.Helper()
	c, err := hub.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, st := range streams {
		if err := c.Subscribe(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// channels counts the shard channels Redis has subscribers for, on
// every master.
func (e *env) channels(t *testing.T) int {
	t.Helper()
	n := 0
	for _, node := range e.raw.Nodes() {
		chans, err := node.Do(t.Context(), node.B().PubsubShardchannels().Build()).AsStrSlice()
		if err != nil {
			t.Fatal(err)
		}
		n += len(chans)
	}
	return n
}

// waitFor waits until cond holds, failing the test after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// next returns the client's next message, failing the test if none
// comes within 10 seconds or the client ends.
func next(t *testing.T, c *livehub.Client) *livehub.Message {
	t.Helper()
	select {
	case m, ok := <-c.Events():
		if !ok {
			t.Fatalf("the client ended: %v", c.Err())
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no event came")
		return nil
	}
}

// expectPost takes the client's next message and checks that it is an
// update of post p on stream st.
func expectPost(t *testing.T, c *livehub.Client, st posts.Stream, p retwis.Post) {
	t.Helper()
	m := next(t, c)
	if m.Stream != st || m.Event.Kind != "update" || m.Event.Post != p.ID {
		t.Fatalf("message %+v; want the update of post %d", m, p.ID)
	}
}

// TestSharedListener: clients of one stream share one listener, started
// by the first and stopped by the last (Redis then has no subscriber
// left), and every client gets every event of its streams.
func TestSharedListener(t *testing.T) {
	t.Parallel()
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{})
	alice := e.user(t, "alice")
	public, own := posts.PublicStream(), posts.UserStream(alice.ID)
	a, b := e.client(t, public), e.client(t, public, own)
	if n := e.listens.Load(); n != 2 {
		t.Fatalf("%d listeners for two streams", n)
	}
	p := e.post(t, alice, "hello")
	expectPost(t, a, public, p)
	got := map[posts.Stream]bool{}
	for range 2 {
		m := next(t, b)
		if m.Event.Post != p.ID {
			t.Fatalf("message %+v; want post %d", m, p.ID)
		}
		got[m.Stream] = true
	}
	if !got[public] || !got[own] {
		t.Fatalf("b got the post on %v; want both its streams", got)
	}

	b.Unsubscribe(own)
	waitFor(t, "the user stream's listener to stop", func() bool { return e.listens.Load() == 1 })
	a.Close()
	expectPost(t, b, public, e.post(t, alice, "after a left")) // the listener goes on
	if n := e.listens.Load(); n != 1 {
		t.Fatalf("%d listeners after the first of two clients left", n)
	}
	b.Close()
	waitFor(t, "the last listener to stop", func() bool { return e.listens.Load() == 0 })
	waitFor(t, "Redis to have no subscriber", func() bool { return e.channels(t) == 0 })
}

// TestListenAgainAtOnce subscribes to a stream again right after its
// last client left: the new listener waits for the old one's
// unsubscription, which would otherwise undo its subscription.
func TestListenAgainAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{})
	alice := e.user(t, "alice")
	public := posts.PublicStream()
	for i := range 5 {
		c := e.client(t, public)
		p := e.post(t, alice, fmt.Sprint("post ", i))
		expectPost(t, c, public, p)
		c.Close()
	}
	if n := e.started.Load(); n != 5 {
		t.Fatalf("%d listeners started for 5 clients one after the other", n)
	}
}

// TestSlowClientDropped: a client that does not read is dropped once its
// buffer is full, with ErrSlow, keeping what it had; the other client
// of the stream gets everything.
func TestSlowClientDropped(t *testing.T) {
	t.Parallel()
	const buffer = 4
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{Buffer: buffer})
	alice := e.user(t, "alice")
	public := posts.PublicStream()
	slow, fast := e.client(t, public), e.client(t, public)
	for i := range buffer + 3 {
		p := e.post(t, alice, fmt.Sprint("post ", i))
		expectPost(t, fast, public, p)
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("the slow client was not dropped")
	}
	if !errors.Is(slow.Err(), livehub.ErrSlow) {
		t.Fatalf("slow client's Err = %v; want ErrSlow", slow.Err())
	}
	held := 0
	for range slow.Events() {
		held++
	}
	if held != buffer {
		t.Fatalf("the dropped client held %d events; want its buffer's %d", held, buffer)
	}
	if err := slow.Subscribe(t.Context(), posts.UserStream(alice.ID)); !errors.Is(err, livehub.ErrSlow) {
		t.Fatalf("Subscribe on a dropped client: %v", err)
	}
}

// TestCloseDrains: Close ends every client (owners see Done and ErrClosed
// and close them), refuses new ones, and returns once the owners have
// closed their clients and Redis has no subscriber left. (That it waits
// for owners that take a moment, and returns at once when they are
// done, TestCloseWaitsForOwners checks in a bubble.)
func TestCloseDrains(t *testing.T) {
	t.Parallel()
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{})
	alice := e.user(t, "alice")
	var reasons [3]error
	var closing atomic.Int64 // owners that began to close their clients
	owned := make(chan struct{})
	for i := range reasons {
		c, err := e.hub.Client()
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 { // the first has no stream yet
			if err := c.Subscribe(t.Context(), posts.UserStream(alice.ID)); err != nil {
				t.Fatal(err)
			}
		}
		go func() {
			defer func() { owned <- struct{}{} }()
			<-c.Done()
			reasons[i] = c.Err()
			closing.Add(1)
			c.Close()
		}()
	}
	e.hub.Close()
	if n := closing.Load(); n != int64(len(reasons)) {
		t.Fatalf("Close returned when %d of %d owners had closed their clients", n, len(reasons))
	}
	for range reasons {
		<-owned
	}
	for i, err := range reasons {
		if !errors.Is(err, livehub.ErrClosed) {
			t.Fatalf("client %d ended with %v; want ErrClosed", i, err)
		}
	}
	if _, err := e.hub.Client(); !errors.Is(err, livehub.ErrClosed) {
		t.Fatalf("Client after Close: %v", err)
	}
	if n := e.channels(t); n != 0 {
		t.Fatalf("Redis still has %d subscribed channels after Close", n)
	}
}

// TestSubscribeErrors: the cases where Subscribe refuses.
func TestSubscribeErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{})
	closed := e.client(t)
	closed.Close()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	// A stream no one else listens to: its listener cannot be ready
	// before the cancelled context is seen.
	fresh := posts.TagStream("nobody-listens-here")
	for _, tc := range []struct {
		name   string
		client *livehub.Client
		ctx    context.Context
		stream posts.Stream
		want   error
	}{
		{"a tag that folds to nothing", e.client(t), t.Context(), posts.TagStream("\u0301"), livehub.ErrNoStream},
		{"a closed client", closed, t.Context(), posts.PublicStream(), livehub.ErrClosed},
		{"a context that ends first", e.client(t), cancelled, fresh, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.client.Subscribe(tc.ctx, tc.stream); !errors.Is(err, tc.want) {
				t.Fatalf("Subscribe = %v; want %v", err, tc.want)
			}
		})
	}
	waitFor(t, "the abandoned listener to stop", func() bool { return e.listens.Load() == 0 })
}

// TestListenAgain: a listener that ends on its own (its connection
// failed) is started again after the backoff, and the clients go on
// getting events without subscribing again. (TestBackoff checks the
// backoff's growth exactly, in a bubble.)
func TestListenAgain(t *testing.T) {
	t.Parallel()
	const backoff = 100 * time.Millisecond
	e := newEnv(t, redistest.Start(t).URL, livehub.Options{Backoff: backoff})
	alice := e.user(t, "alice")
	own := posts.UserStream(alice.ID)
	c := e.client(t, own)
	cut := time.Now()
	(*e.cut.Load())()
	waitFor(t, "a new listener", func() bool { return e.started.Load() == 2 })
	if d := time.Since(cut); d < backoff {
		t.Fatalf("listened again after %v; want the backoff, %v", d, backoff)
	}
	waitFor(t, "Redis to have the subscription again", func() bool { return e.channels(t) == 1 })
	expectPost(t, c, own, e.post(t, alice, "after the cut"))
}

// TestOutage: when Redis restarts, the clients go on getting events
// without subscribing again (the client library subscribes again, or
// the Hub listens again).
func TestOutage(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	e := newEnv(t, r.URL, livehub.Options{Backoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	alice := e.user(t, "alice")
	own := posts.UserStream(alice.ID)
	c := e.client(t, own)
	r.Stop(t)
	r.Restart(t)
	sent, m := e.postUntilEvent(t, c, alice)
	// The subscription is back: the posts sent after m's come too, and
	// then the next one.
	for ; m.Event.Post != sent[len(sent)-1]; m = next(t, c) {
		if m.Stream != own || m.Event.Kind != "update" || !slices.Contains(sent, m.Event.Post) {
			t.Fatalf("message %+v; want the update of a post of %v", m, sent)
		}
	}
	expectPost(t, c, own, e.post(t, alice, "once back"))
}

// postUntilEvent posts as author until c gets an event, which must be
// of one of the posts, and returns the posts and the event: the first
// posts may be sent before the subscription is back, and then come late
// or never.
func (e *env) postUntilEvent(t *testing.T, c *livehub.Client, author retwis.User) ([]int64, *livehub.Message) {
	t.Helper()
	var sent []int64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if p, err := e.st.CreatePost(t.Context(), author.ID, "after the outage"); err == nil {
			storetest.Drain(t, e.st)
			sent = append(sent, p.ID)
		}
		select {
		case m, ok := <-c.Events():
			if !ok {
				t.Fatalf("the client ended: %v", c.Err())
			}
			if m.Event.Kind != "update" || !slices.Contains(sent, m.Event.Post) {
				t.Fatalf("message %+v; want the update of a post of %v", m, sent)
			}
			return sent, m
		case <-time.After(200 * time.Millisecond): // post again
		}
	}
	t.Fatal("no event came after Redis restarted")
	return nil, nil
}

// TestRedisAway: while Redis is away, Subscribe fails as soon as the
// stream's listener does, rather than at the caller's deadline; once
// Redis is back, subscribing works again.
func TestRedisAway(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	e := newEnv(t, r.URL, livehub.Options{})
	alice := e.user(t, "alice")
	own := posts.UserStream(alice.ID)
	r.Stop(t)
	c := e.client(t)
	start := time.Now()
	if err := c.Subscribe(t.Context(), own); retwis.ErrorKind(err) != retwis.Unavailable || time.Since(start) > 5*time.Second {
		t.Fatalf("Subscribe with Redis away: %v after %v; want Unavailable at once", err, time.Since(start))
	}
	waitFor(t, "the failed listener to stop", func() bool { return e.listens.Load() == 0 })
	r.Restart(t)
	waitFor(t, "a subscription", func() bool { return c.Subscribe(t.Context(), own) == nil })
	expectPost(t, c, own, e.post(t, alice, "back"))
}

// TestCluster: on a cluster, where each stream's channel lives on the
// master of its slot, the clients of streams on different masters get
// their events.
func TestCluster(t *testing.T) {
	t.Parallel()
	e := newEnv(t, redistest.Cluster(t), livehub.Options{})
	var users []retwis.User
	var streams []posts.Stream
	for i := range 6 { // users' streams spread over the masters
		u := e.user(t, fmt.Sprint("user", i))
		users, streams = append(users, u), append(streams, posts.UserStream(u.ID))
	}
	tag, public := posts.TagStream("Go"), posts.PublicStream()
	c := e.client(t, append(streams, tag, public)...)
	for i, u := range users {
		p := e.post(t, u, "hello #go")
		got := map[posts.Stream]bool{}
		for range 3 {
			m := next(t, c)
			if m.Event.Post != p.ID {
				t.Fatalf("message %+v; want post %d", m, p.ID)
			}
			got[m.Stream] = true
		}
		if !got[streams[i]] || !got[tag] || !got[public] {
			t.Fatalf("post of user %d came on %v; want its author's, the tag's and the public stream", i, got)
		}
	}
}
