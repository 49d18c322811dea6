package streaming

import (
	"context"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/store/posts"
)

const (
	// defaultHeartbeat is how often a quiet stream shows its client it is
	// alive, as Mastodon does.
	defaultHeartbeat = 15 * time.Second
	// streamWriteTimeout is how long a write to a stream may take: a
	// client that does not take its events is dropped after it.
	streamWriteTimeout = 10 * time.Second
	// subscribeTimeout bounds the wait for Redis to confirm a new
	// stream's subscription.
	subscribeTimeout = 10 * time.Second
	// maxStreams bounds the streams of one WebSocket connection.
	maxStreams = 64
)

// The scopes of the user streams, as Mastodon names them.
const (
	readStatuses      = "read:statuses"
	readNotifications = "read:notifications"
)

// listener is who asks for a stream: a user with the scopes of their
// token (a session of the pages grants "read"), or nobody; and the
// access they came with, which a revocation ends.
type listener struct {
	user   retwis.User
	scopes retwis.Scopes
	access accounts.Access
}

// revokedBy reports whether m takes l's access away.
func (l listener) revokedBy(m *livehub.Message) bool {
	return m.Event.Kind == posts.Revoked && m.Event.Revocation.Ends(l.access)
}

// listenerOf resolves the token a stream request carries (secret), or
// else, if cookie is set, the session of the pages. A token that is not
// valid is refused; a session that is not is ignored, as the pages
// ignore it. Its errors are never of kind Invalid (the one the API
// answers otherwise), so the handlers answer them with the stack's Fail.
func (s *Server) listenerOf(r *http.Request, secret string, cookie bool) (listener, error) {
	if secret != "" {
		t, err := s.store.AuthenticateToken(r.Context(), secret)
		if err != nil {
			return listener{}, err
		}
		return listener{user: t.User, scopes: t.Scopes, access: accounts.Access{User: t.User.ID, Token: t.ID}}, nil
	}
	if !cookie || s.session == nil || s.session(r) == "" {
		return listener{}, nil
	}
	u, err := s.store.Authenticate(r.Context(), s.session(r))
	switch {
	case err == nil:
		return listener{user: u, scopes: retwis.Scopes{"read"},
			access: accounts.Access{User: u.ID, Session: accounts.SessionID(s.session(r))}}, nil
	case retwis.ErrorKind(err) == retwis.Unauthorized:
		return listener{}, nil
	}
	return listener{}, err
}

// liveStream is one of Mastodon's streams as a client named it.
type liveStream struct {
	name   string       // "user", "user:notification", "direct", "public", "public:local", "hashtag", "hashtag:local", "list"…
	tag    string       // a hashtag stream's tag, as the client wrote it; a list stream's list id
	list   int64        // a list stream's list, whose posts it sends of its owner's stream
	source posts.Stream // the store's stream it reads
	posts  bool         // updates and deletions are sent
	notes  bool         // notifications are sent
	direct bool         // the direct posts that reach the user are sent, as their conversations
	media  bool         // of the posts, those with pictures alone are sent (and every deletion)
}

// filterContext is the context of the viewer's filters that the stream
// applies: the user and list streams are the home timeline's, the
// others public.
func (ls liveStream) filterContext() string {
	if ls.name == "user" || ls.name == "user:notification" || ls.name == "list" {
		return filters.Home
	}
	return filters.Public
}

// key tells the streams of a connection apart: tags that fold alike are
// one stream.
func (ls liveStream) key() string { return ls.name + "#" + retwis.FoldTag(ls.tag) }

// label is the stream as WebSocket messages name it: ["hashtag", "x"].
func (ls liveStream) label() []string {
	if ls.tag != "" {
		return []string{ls.name, ls.tag}
	}
	return []string{ls.name}
}

// sends reports whether the stream sends events of kind.
func (ls liveStream) sends(kind string) bool {
	if ls.direct {
		return kind == "update"
	}
	if kind == "notification" {
		return ls.notes
	}
	return ls.posts
}

// streamError is a stream refused, with its status and message.
type streamError struct {
	status  int
	message string
}

// resolveStream returns the stream named name (with tag, for a hashtag
// stream; for a list stream, tag is the list's id) if l may read it. A
// user's streams need their token, with read:statuses (user, direct,
// list) or read:notifications (user:notification); the user stream
// carries notifications only if the token grants that too. A list
// stream is the user stream's posts that the list shows
// (Server.shows), and only the list's owner has it (Server.resolve).
// The others are public; those of media send the public stream's posts
// that have pictures (Server.shows). retwis is one server, so the local
// streams are the same as the others, and the remote ones carry nothing.
func resolveStream(name, tag string, l listener) (liveStream, *streamError) {
	switch name {
	case "user", "user:notification", "direct", "list":
		if refused := userOnly(name, l); refused != nil {
			return liveStream{}, refused
		}
		if name == "list" {
			return listStream(tag, l)
		}
		return liveStream{name: name, source: posts.UserStream(l.user.ID), posts: name == "user",
			notes: name != "direct" && l.scopes.Allows(readNotifications), direct: name == "direct"}, nil
	case "public", "public:local":
		return liveStream{name: name, source: posts.PublicStream(), posts: true}, nil
	case "public:media", "public:local:media":
		return liveStream{name: name, source: posts.PublicStream(), posts: true, media: true}, nil
	case "public:remote", "public:remote:media":
		return liveStream{name: name, source: posts.PublicStream()}, nil
	case "hashtag", "hashtag:local":
		src := posts.TagStream(tag)
		switch {
		case tag == "":
			return liveStream{}, &streamError{http.StatusBadRequest, "Missing tag name parameter"}
		case src == (posts.Stream{}) || utf8.RuneCountInString(tag) > 100:
			return liveStream{}, &streamError{http.StatusBadRequest, "Unknown tag"}
		}
		return liveStream{name: name, tag: tag, source: src, posts: true}, nil
	}
	return liveStream{}, &streamError{http.StatusBadRequest, "Unknown stream type"}
}

// shows reports whether ls, of l, sends ev: every deletion, and every
// event of a stream other than a list's or one of media; of a list's,
// a post the list shows (lists.Store.Shows); of one of media, a post
// with pictures. The post is read through the client-side cache, which
// rendering it fills anyway.
func (s *Server) shows(ls liveStream, l listener, ev posts.Event) bool {
	if ls.name != "list" && !ls.media || ev.Kind == "delete" {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), renderTimeout)
	defer cancel()
	p, err := s.store.Post(ctx, l.user.ID, ev.Post)
	switch {
	case err != nil:
		return false // gone, or not seen: nothing to send
	case ls.media:
		return len(p.Media) > 0
	}
	shows, err := lists.New(s.store).Shows(ctx, l.user.ID, ls.list, p)
	if err != nil {
		s.log.Warn("live event of a list", "list", ls.list, "err", err)
	}
	return shows
}

// userOnly refuses stream name of a user's to l unless l is a user whose
// token grants what it needs: read:notifications for user:notification,
// read:statuses for the others.
func userOnly(name string, l listener) *streamError {
	need := readStatuses
	if name == "user:notification" {
		need = readNotifications
	}
	switch {
	case l.user.ID == 0 && l.scopes != nil: // an app's own token
		return &streamError{http.StatusUnprocessableEntity, "This method requires an authenticated user"}
	case l.user.ID == 0:
		return &streamError{http.StatusUnauthorized, "Missing access token"}
	case !l.scopes.Allows(need):
		return &streamError{http.StatusForbidden, "Access token does not have the required scopes"}
	}
	return nil
}

// subscribe adds ls to c, waiting (a bounded time) until it is listened
// to.
func (s *Server) subscribe(ctx context.Context, c *livehub.Client, ls liveStream) error {
	ctx, cancel := context.WithTimeout(ctx, subscribeTimeout)
	defer cancel()
	return c.Subscribe(ctx, ls.source)
}

// open subscribes c, the client of a new connection of l, to its first
// streams and, if l is a user, to the revocations that end it: on every
// server, a token revoked or a session ended ends the connections it
// opened (listener.revokedBy).
func (s *Server) open(ctx context.Context, c *livehub.Client, l listener, first ...liveStream) error {
	if l.access.User != 0 {
		ctx, cancel := context.WithTimeout(ctx, subscribeTimeout)
		defer cancel()
		if err := c.Subscribe(ctx, posts.RevocationStream()); err != nil {
			return err
		}
	}
	for _, ls := range first {
		if err := s.subscribe(ctx, c, ls); err != nil {
			return err
		}
	}
	return nil
}

// admit lets a new connection of l in, or answers why not: past the
// limits of connections open at once (429), or past the client API's
// rate limit of its token, or of its address without a user (429 and
// Retry-After); a session of the pages counts against the limits alone.
// It returns the function that ends the connection's count.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, l listener) (release func(), ok bool) {
	release, refused := s.conns.admit(l, middleware.ClientAddr(r))
	if refused != nil {
		apiwire.RenderError(w, r, refused.status, refused.message)
		return nil, false
	}
	if l.access.Session == "" && !s.api.TakeStream(w, r, l.access.Token) {
		release()
		return nil, false
	}
	return release, true
}

// streamUnavailable answers a stream that could not be started.
func (s *Server) streamUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	s.mw.LogFailure(r, http.StatusServiceUnavailable, err)
	apiwire.RenderError(w, r, http.StatusServiceUnavailable, "Live updates are unavailable right now. Please try again in a moment.")
}

// streamEnded logs why the Hub ended a stream's client, if it did.
func (s *Server) streamEnded(r *http.Request, c *livehub.Client) {
	if err := c.Err(); err != nil {
		s.log.Info("live stream ended", "path", r.URL.Path, "reason", err)
	}
}
