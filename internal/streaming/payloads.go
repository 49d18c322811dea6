package streaming

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/posts"
)

const (
	// payloadsKept is how many rendered events a generation of the cache
	// holds: two generations are kept, so the cache holds between one and
	// two times as many.
	payloadsKept = 1024
	// renderTimeout bounds the reads that render an event.
	renderTimeout = 5 * time.Second
)

// payloads renders the events of the streams once per process: the
// thousand clients of a stream get the same Status, read from Redis and
// encoded once. They are kept by event and origin (entities carry
// absolute URLs), the newest few thousand: events are sent as they
// happen, so an old one is rarely asked for again.
type payloads struct {
	mu       sync.Mutex
	cur, old map[payloadKey]*payload
}

// payloadKey names a rendered event.
type payloadKey struct {
	kind    string
	id      int64 // the post's, or the notification's
	version int64 // an edit's time (posts.Event.Edited)
	origin  string
}

// payload is an event rendered, or being rendered (until ready closes).
type payload struct {
	ready chan struct{}
	data  string // "" when there is nothing to send: the post is gone
	err   error
}

// get returns the payload of key, rendering it unless another client
// did or is doing so.
func (p *payloads) get(key payloadKey, render func() (string, error)) (string, error) {
	e, mine := p.entry(key)
	if !mine {
		<-e.ready
		return e.data, e.err
	}
	e.data, e.err = render()
	close(e.ready)
	if e.err != nil {
		p.forget(key, e) // the next client tries again
	}
	return e.data, e.err
}

// entry returns the entry of key, and whether the caller created it
// (and so must render it).
func (p *payloads) entry(key payloadKey) (*payload, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.cur[key]; e != nil {
		return e, false
	}
	e, found := p.old[key]
	if !found {
		e = &payload{ready: make(chan struct{})}
	}
	if len(p.cur) >= payloadsKept || p.cur == nil {
		p.old, p.cur = p.cur, make(map[payloadKey]*payload, payloadsKept)
	}
	p.cur[key] = e
	return e, !found
}

// forget drops e, if it is still key's entry.
func (p *payloads) forget(key payloadKey, e *payload) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur[key] == e {
		delete(p.cur, key)
	}
	if p.old[key] == e {
		delete(p.old, key)
	}
}

// payload returns the event that ls sends of ev to viewer (0: logged
// out), a client of origin, and its payload ("" for none): the event
// itself (see eventPayload), or for the direct stream a "conversation"
// (see conversationPayload).
func (s *Server) payload(origin string, viewer retwis.User, ls liveStream, ev posts.Event) (event, data string, err error) {
	if ls.direct {
		data, err := s.conversationPayload(origin, viewer.ID, ev)
		return "conversation", data, err
	}
	data, err = s.eventPayload(origin, viewer, ls.filterContext(), ev)
	return ev.Kind, data, err
}

// conversationPayload returns the Conversation of viewer's that the
// update ev brings, if its post is a direct one: rendered for viewer
// alone (who it is with, whether it is unread), so not kept; "" for
// another post, or one viewer does not see.
func (s *Server) conversationPayload(origin string, viewer int64, ev posts.Event) (string, error) {
	ctx, cancel := context.WithTimeout(middleware.WithViewer(context.Background(), retwis.User{ID: viewer}), renderTimeout)
	defer cancel()
	p, err := s.store.Post(ctx, viewer, ev.Post)
	if retwis.ErrorKind(err) == retwis.NotFound || err == nil && p.Visibility != retwis.Direct {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("live conversation of post %d: %w", ev.Post, err)
	}
	data, err := s.api.ConversationJSON(ctx, origin, viewer, ev.Post)
	if err != nil {
		return "", fmt.Errorf("live conversation of post %d: %w", ev.Post, err)
	}
	return data, nil
}

// eventPayload returns the payload of an event for viewer (0: logged
// out), a client of origin: a Status (of a new post, or an edited one)
// or a Notification as JSON, a deleted post's id; "" if there is
// nothing to send (the post or the notification's post is gone, or
// viewer does not see its account: blocked, muted, suspended; or a hide
// filter of viewer's, of the stream's filter context fc, matches the
// post). A warn filter's filtered is not sent: the payload is rendered
// once for every client.
func (s *Server) eventPayload(origin string, viewer retwis.User, fc string, ev posts.Event) (string, error) {
	if hidden, err := s.hides(viewer.ID, ev); hidden || err != nil {
		return "", err
	}
	if hidden, err := s.filtersHide(viewer, fc, ev); hidden || err != nil {
		return "", err
	}
	switch ev.Kind {
	case "delete":
		return strconv.FormatInt(ev.Post, 10), nil
	case "update", "status.update": // an edit's payload is kept by its time: a later edit renders anew
		return s.payloads.get(payloadKey{ev.Kind, ev.Post, ev.Edited, origin}, func() (string, error) {
			return s.renderStatus(origin, ev.Post)
		})
	case "notification":
		return s.payloads.get(payloadKey{ev.Kind, ev.Notification.ID, 0, origin}, func() (string, error) {
			return s.renderNotification(origin, viewer.ID, ev.Notification) // only viewer is notified of it
		})
	}
	return "", nil
}

// hides reports whether viewer does not see the account of ev: an
// update's author (blocks, mutes, suspensions: a stream is a timeline)
// or a notification's actor (blocks, suspensions); or does not see an
// update's post (its visibility). Read through the client-side cache,
// which rendering the post fills anyway.
func (s *Server) hides(viewer int64, ev posts.Event) (bool, error) {
	if ev.Kind == "delete" {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	hidden, err := s.store.Hidden(ctx, viewer)
	if err != nil {
		return false, fmt.Errorf("live event: %w", err)
	}
	if ev.Kind == "notification" {
		return hidden.Hides(ev.Notification.Actor.ID, retwis.InConversation), nil
	}
	p, err := s.store.Post(ctx, viewer, ev.Post)
	if retwis.ErrorKind(err) == retwis.NotFound {
		return true, nil // gone, or its author suspended
	}
	if err != nil {
		return false, fmt.Errorf("live update of post %d: %w", ev.Post, err)
	}
	return hidden.Hides(p.AuthorID, retwis.InTimeline), nil
}

// filtersHide reports whether a hide filter of viewer's that applies in
// fc matches the post of an update or an edit (through the memo of the
// viewer's filters: no round trip when warm; none read for a viewer who
// never made a filter).
func (s *Server) filtersHide(viewer retwis.User, fc string, ev posts.Event) (bool, error) {
	if !viewer.Filtered || (ev.Kind != "update" && ev.Kind != "status.update") {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	p, err := s.store.Post(ctx, viewer.ID, ev.Post) // read by hides already: from the client-side cache
	if err != nil {
		return false, fmt.Errorf("live update of post %d: %w", ev.Post, err)
	}
	applied, err := s.api.Filters.Apply(ctx, viewer, fc, []retwis.Post{p})
	if err != nil {
		return false, fmt.Errorf("live update of post %d: filters: %w", ev.Post, err)
	}
	return len(applied.Posts) == 0, nil
}

// renderStatus renders the Status of post pid.
func (s *Server) renderStatus(origin string, pid int64) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	data, err := s.api.StatusJSON(ctx, origin, pid)
	if err != nil {
		return "", fmt.Errorf("live update of post %d: %w", pid, err)
	}
	return data, nil
}

// renderNotification renders the Notification of n for viewer.
func (s *Server) renderNotification(origin string, viewer int64, n retwis.Notification) (string, error) {
	ctx, cancel := context.WithTimeout(middleware.WithViewer(context.Background(), retwis.User{ID: viewer}), renderTimeout)
	defer cancel()
	data, err := s.api.NotificationJSON(ctx, origin, n)
	if err != nil {
		return "", fmt.Errorf("live notification %d: %w", n.ID, err)
	}
	return data, nil
}
