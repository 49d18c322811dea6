package posts

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// Live events travel on Redis's sharded pub/sub (SPUBLISH, SSUBSCRIBE):
// each stream is a channel in the slot of what it streams (a user's, a
// tag's, the public one's own), so that on a cluster a post's events go
// to the masters of its readers, and any server can serve any client.
// They are sent once the writes they announce are done, in the same
// pipelines where possible; pub/sub keeps nothing, so a client that was
// not listening learns what it missed from its timeline, as Mastodon's
// clients do.

// Stream names a stream of live events.
type Stream struct{ channel string }

// UserStream is uid's stream: the posts that reach uid's home timeline
// (their own included), and uid's notifications.
func UserStream(uid int64) Stream { return Stream{schema.UserStream(uid)} }

// PublicStream is the stream of every new post.
func PublicStream() Stream { return Stream{schema.PublicStream} }

// TagStream is the stream of the posts with tag (in any case or accent).
// It is the zero Stream for a tag that folds to nothing.
func TagStream(tag string) Stream {
	if f := retwis.FoldTag(tag); f != "" {
		return Stream{schema.TagStream(f)}
	}
	return Stream{}
}

// RevocationStream is the stream of access taken away (Events of Kind
// Revoked), which every server listening to live events follows too, so
// that it ends the streams that access opened.
func RevocationStream() Stream { return Stream{schema.Revocations} }

// Event is a live event of a stream.
type Event struct {
	// Kind is "update" (a new post), "status.update" (an edited one),
	// "delete" (a deleted post), "notification" or Revoked.
	Kind string
	// Post is the post an update, an edit or a deletion is about.
	Post int64
	// Edited is when an edit was made (unix ms), which tells two edits
	// of a post apart.
	Edited int64
	// Notification is the notification of a "notification" event; its
	// actor's username is not filled in.
	Notification retwis.Notification
	// Revocation is the access a Revoked event took away.
	Revocation accounts.Revocation
}

// Revoked is the Kind of the events of RevocationStream.
const Revoked = schema.EventRevoke

// Listening is the Kind of the event that Listen gives fn each time
// Redis confirms the subscription (first, and again after the client
// reconnected): from then on, no event of the stream is missed.
const Listening = "listening"

// unsubscribeTimeout bounds the SUNSUBSCRIBE that ends a Listen.
const unsubscribeTimeout = time.Second

// Listen calls fn with each event of the stream, after an event of Kind
// Listening once Redis has the subscription, until ctx ends (it then
// returns ctx's error) or the subscription does: it returns an error if
// the connection to Redis failed, nil if Redis ended the subscription
// (on a cluster, when the stream's slot moved). Either way the caller
// may listen again. fn must not block: it runs on the connection's
// reader. Its calls do not overlap.
//
// Listen shares the store's connection. When ctx ends it unsubscribes
// the connection, which ends any other Listen of the same stream on the
// same Store (they return nil): a process listens to a stream once and
// shares its events (internal/livehub's Hub does).
func (s *Store) Listen(ctx context.Context, st Stream, fn func(Event)) error {
	if st.channel == "" {
		return retwis.Errorf(retwis.Invalid, "There is no such stream.")
	}
	var mu sync.Mutex // the confirmation comes from the reader, messages from Receive's goroutine
	call := func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		fn(ev)
	}
	ctx = rueidis.WithOnSubscriptionHook(ctx, func(sub rueidis.PubSubSubscription) {
		if sub.Kind == "ssubscribe" && sub.Channel == st.channel {
			call(Event{Kind: Listening})
		}
	})
	ctx = rueidis.WithOnReceiveReturnHook(ctx, func(err error, c rueidis.CommandClient) error {
		if ctx.Err() == nil {
			return err
		}
		// Redis would otherwise go on sending the stream to the connection.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unsubscribeTimeout)
		defer cancel()
		if uerr := c.Do(uctx, c.B().Sunsubscribe().Channel(st.channel).Build()).Error(); uerr != nil {
			s.Log.Warn("ending a live stream", "stream", st.channel, "err", uerr)
		}
		return err
	})
	err := s.C.Receive(ctx, s.C.B().Ssubscribe().Channel(st.channel).Build(), func(m rueidis.PubSubMessage) {
		if ev, ok := parseEvent(m.Message); ok {
			call(ev)
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.Wrap("listen", err)
}

// parseEvent reads a stream's message.
func parseEvent(msg string) (Event, bool) {
	kind, rest, _ := strings.Cut(msg, ":")
	switch kind {
	case schema.EventUpdate, schema.EventDelete:
		pid, err := strconv.ParseInt(rest, 10, 64)
		return Event{Kind: kind, Post: pid}, err == nil && pid > 0
	case schema.EventEdit:
		p, at, _ := strings.Cut(rest, ":")
		pid, err1 := strconv.ParseInt(p, 10, 64)
		ms, err2 := strconv.ParseInt(at, 10, 64)
		return Event{Kind: kind, Post: pid, Edited: ms}, err1 == nil && err2 == nil && pid > 0
	case schema.EventNotification:
		at, member, _ := strings.Cut(rest, ":")
		ms, err := strconv.ParseInt(at, 10, 64)
		n, ok := ParseNote(member)
		if err != nil || !ok {
			return Event{}, false
		}
		n.ID, n.Time = NoteID(ms, member), time.UnixMilli(ms)
		return Event{Kind: kind, Notification: n}, true
	case schema.EventRevoke:
		r, ok := accounts.ParseRevocation(rest)
		return Event{Kind: kind, Revocation: r}, ok
	}
	return Event{}, false
}

// Announce sends the event kind of posts to the streams of the users
// they reached (user -> posts), in one pipeline. Live events are a
// courtesy (the timelines are the truth), so a failure is logged, not
// returned.
func (s *Store) Announce(ctx context.Context, kind string, reached map[int64][]int64) {
	var cmds rueidis.Commands
	for u, pids := range reached {
		for _, p := range pids {
			cmds = append(cmds, index.PublishCmd(s.C, schema.UserStream(u), schema.PostEvent(kind, p)))
		}
	}
	if len(cmds) == 0 {
		return
	}
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)); err != nil {
		s.Log.Warn("sending live events", "event", kind, "users", len(reached), "err", err)
	}
}

// Each maps every user to the same posts, for announce.
func Each(users []int64, pids ...int64) map[int64][]int64 {
	m := make(map[int64][]int64, len(users))
	for _, u := range users {
		m[u] = pids
	}
	return m
}
