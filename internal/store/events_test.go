package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// listening is a Listen running for a test.
type listening struct {
	events chan posts.Event
	stop   context.CancelFunc
	done   chan error
}

// listen listens to st until stopped (or the test ends), and waits
// until Redis has the subscription.
func (f *fixture) listen(t *testing.T, st posts.Stream) *listening {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listening{events: make(chan posts.Event, 64), stop: cancel, done: make(chan error, 1)}
	go func() { l.done <- f.St.Listen(ctx, st, func(ev posts.Event) { l.events <- ev }) }()
	t.Cleanup(func() { cancel(); <-l.done })
	if ev := l.next(t); ev.Kind != posts.Listening {
		t.Fatalf("first event %+v; want %q", ev, posts.Listening)
	}
	return l
}

// next returns the next event, failing the test after a few seconds.
func (l *listening) next(t *testing.T) posts.Event {
	t.Helper()
	select {
	case ev := <-l.events:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event came")
		return posts.Event{}
	}
}

// expect takes the next events and checks their kinds and posts.
func (l *listening) expect(t *testing.T, name string, want ...posts.Event) {
	t.Helper()
	for _, w := range want {
		got := l.next(t)
		if got.Kind != w.Kind || got.Post != w.Post {
			t.Fatalf("%s stream: event %s %d; want %s %d", name, got.Kind, got.Post, w.Kind, w.Post)
		}
	}
}

// subscribers counts the connections subscribed to the channel of the
// stream of user uid on every master (one of which owns its slot).
func (f *fixture) subscribers(t *testing.T, uid int64) int64 {
	t.Helper()
	channel := "stream:{" + itoa(uid) + "}"
	var n int64
	for _, node := range f.Raw.Nodes() {
		res, err := node.Do(f.Ctx, node.B().PubsubShardnumsub().Channel(channel).Build()).ToArray()
		if err != nil || len(res) != 2 {
			t.Fatalf("PUBSUB SHARDNUMSUB: %v %v", res, err)
		}
		count := must.Value(res[1].AsInt64())(t)
		n += count
	}
	return n
}

// TestLiveEvents follows a post through the streams that announce it, on
// one Redis and on a cluster (where each stream's channel is on the
// master of its slot): its author's, its reader's, the public one and its
// tag's get the update and then the deletion, the user it mentions the
// notification, and the end of a Listen unsubscribes its connection.
func TestLiveEvents(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		if err := f.St.Follow(f.Ctx, bob.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
		f.Drain(t)
		author, reader := f.listen(t, posts.UserStream(alice.ID)), f.listen(t, posts.UserStream(bob.ID))
		public, tag := f.listen(t, posts.PublicStream()), f.listen(t, posts.TagStream("GÖ"))
		p, err := f.St.CreatePost(f.Ctx, alice.ID, "hello @bob #go")
		if err != nil {
			t.Fatal(err)
		}
		f.Drain(t)
		if err := f.St.DeletePost(f.Ctx, alice.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		f.Drain(t)
		update, deletion := posts.Event{Kind: "update", Post: p.ID}, posts.Event{Kind: "delete", Post: p.ID}
		author.expect(t, "author", update, deletion)
		public.expect(t, "public", update, deletion)
		tag.expect(t, "tag", update, deletion)
		got := []posts.Event{reader.next(t), reader.next(t), reader.next(t)}
		var note posts.Event
		for _, ev := range got {
			if ev.Kind == "notification" {
				note = ev
			}
		}
		if n := note.Notification; n.Kind != retwis.NotificationMention || n.Actor.ID != alice.ID || n.Post != p.ID || n.ID == 0 {
			t.Fatalf("reader's events %+v; want a notification of alice's mention", got)
		}

		if n := f.subscribers(t, bob.ID); n != 1 {
			t.Fatalf("%d connections subscribed to bob's stream; want 1", n)
		}
		reader.stop()
		if err := <-reader.done; err != context.Canceled {
			t.Fatalf("Listen returned %v; want context.Canceled", err)
		}
		reader.done <- err
		if n := f.subscribers(t, bob.ID); n != 0 {
			t.Fatalf("%d connections still subscribed to bob's stream after Listen returned", n)
		}
	})
}

// TestListenNoSuchStream refuses the stream of a tag that folds to
// nothing.
func TestListenNoSuchStream(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tag := range []string{"", "\u0301"} {
		err := f.St.Listen(f.Ctx, posts.TagStream(tag), func(posts.Event) {})
		storetest.WantKind(t, err, retwis.Invalid)
	}
}
