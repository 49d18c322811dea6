package streaming

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/middleware"
)

// streamEvents answers GET /api/v1/streaming/user, /user/notification,
// /direct, /public, /public/local, /public/remote (each public one of
// posts with media alone with only_media=true), /hashtag?tag=,
// /hashtag/local?tag= and /list?list=: the stream name, as Server-Sent
// Events. The user streams take the token as the other routes do, or
// the session cookie of the pages, so that they can listen too.
func (s *Server) streamEvents(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l, err := s.listenerOf(r, apiwire.Bearer(r), true)
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		if strings.HasPrefix(name, "public") && apiwire.Flag(r.URL.Query(), "only_media") {
			name += ":media"
		}
		ls, refused := s.resolve(r.Context(), name, streamArg(name, r.URL.Query()), l)
		if refused != nil {
			apiwire.RenderError(w, r, refused.status, refused.message)
			return
		}
		release, ok := s.admit(w, r, l)
		if !ok {
			return
		}
		defer release()
		c, err := s.hub.Client()
		if err == nil {
			defer c.Close()
			err = s.open(r.Context(), c, l, ls)
		}
		if err != nil {
			s.streamUnavailable(w, r, err)
			return
		}
		s.sendEvents(w, r, c, ls, l)
		s.streamEnded(r, c)
	}
}

// sendEvents writes the events of c as Server-Sent Events until the
// client goes away or the Hub ends c: `event: <kind>` and `data:
// <payload>`, a `:thump` comment every heartbeat, as Mastodon writes
// them; those of accounts l's user does not see are left out. A
// revocation of l's access ends it.
func (s *Server) sendEvents(w http.ResponseWriter, r *http.Request, c *livehub.Client, ls liveStream, l listener) {
	rc := http.NewResponseController(w)
	// The server's read timeout would end the stream: the client sends
	// nothing more, and a read that times out cancels the request.
	rc.SetReadDeadline(time.Time{})
	defer abortWhenEnded(rc, c)()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies pass each event on at once
	w.WriteHeader(http.StatusOK)
	send := func(parts ...string) bool {
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		for _, p := range parts {
			if _, err := io.WriteString(w, p); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	heartbeat := time.NewTicker(s.heartbeat)
	defer heartbeat.Stop()
	origin := middleware.Origin(r)
	for ok := send(":)\n"); ok; {
		select {
		case <-r.Context().Done():
			return
		case <-c.Done():
			return
		case <-heartbeat.C:
			ok = send(":thump\n")
		case m := <-c.Events():
			if m == nil || l.revokedBy(m) {
				return // ended (Done says so too), or its access taken away
			}
			if m.Stream != ls.source || !ls.sends(m.Event.Kind) || !s.shows(ls, l, m.Event) {
				continue
			}
			event, data, err := s.payload(origin, l.user, ls, m.Event)
			if err != nil {
				s.log.Warn("live event", "event", m.Event.Kind, "err", err)
			}
			if data != "" {
				ok = send("event: ", event, "\ndata: ", data, "\n\n")
			}
		}
	}
}

// abortWhenEnded makes a write blocked on a client that takes nothing
// fail as soon as the Hub drops the client (too slow, or shutting down),
// instead of at its deadline. It returns the function that stops
// watching, to be called before the handler returns.
func abortWhenEnded(rc *http.ResponseController, c *livehub.Client) (stop func()) {
	quit, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-c.Done():
			rc.SetWriteDeadline(time.Now())
		case <-quit:
		}
	}()
	return func() { close(quit); <-watched }
}
