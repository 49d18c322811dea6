// Package streaming is Mastodon's streaming API on retwis: the live
// updates of the client API, in both its transports, Server-Sent Events
// (one stream per request, sse.go) and a WebSocket that carries any
// number (websocket.go), under /api/v1/streaming. Its events are
// rendered once per process (payloads.go), as the client API renders
// its entities (entity.Builder, through the API's apiwire.Kit), and its
// errors are the API's.
//
// Three packages deal in streams, each a word of its own:
//
//   - a stream (posts.Stream, internal/store) is a channel of live events
//     on Redis: a user's, a tag's, the public one;
//   - a hub (internal/livehub) shares a process's streams among its
//     clients: one subscription to Redis per stream, however many
//     clients follow it;
//   - streaming (this package) is how those clients are HTTP clients, in
//     Mastodon's words and routes.
package streaming

import (
	"cmp"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
)

// Options configure a Server.
type Options struct {
	// Store is where the events come from (store.Listen) and the tokens
	// and sessions of the listeners are checked.
	Store *store.Store
	// API is the client API's kit: it renders the entities the events
	// carry, as the client API answers them, and counts the opening of
	// a stream against the API's rate limit. Required.
	API *apiwire.Kit
	Log *slog.Logger
	// Metrics, if not nil, receives the request metrics (shared with the
	// other interfaces', by route).
	Metrics prometheus.Registerer
	// Session, if not nil, reads the HTML interface's session from a
	// request: the streams accept it, so that the pages can listen.
	Session middleware.Credential
	// Heartbeat is how often a quiet stream shows its client it is alive
	// (a comment line, a WebSocket ping); zero means 15 seconds, as
	// Mastodon.
	Heartbeat time.Duration
	// Buffer is how many events a stream's client may be behind before
	// it is disconnected; zero means livehub.DefaultBuffer.
	Buffer int
	// Proxies are the proxies whose X-Forwarded-For and
	// X-Forwarded-Proto are believed (middleware.Proxies).
	Proxies []netip.Prefix
	// Limits bound the connections open at once per token, account and
	// address; zeros mean DefaultLimits.
	Limits Limits
}

// Server serves the streaming API.
type Server struct {
	store     *store.Store
	api       *apiwire.Kit
	log       *slog.Logger
	mw        *middleware.Stack
	session   middleware.Credential
	hub       *livehub.Hub
	payloads  payloads
	heartbeat time.Duration
	handler   http.Handler
	conns     *connections
}

// New returns a Server.
func New(opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		store: opts.Store, api: opts.API, log: log, session: opts.Session,
		hub:       livehub.New(livehub.Options{Listen: opts.Store.Listen, Buffer: opts.Buffer, Log: log}),
		heartbeat: cmp.Or(opts.Heartbeat, defaultHeartbeat),
		conns:     newConnections(opts.Limits),
	}
	if opts.Metrics != nil {
		s.registerMetrics(opts.Metrics)
	}
	// The API's middleware, but for the request timeout: a stream lasts
	// as long as its client stays.
	s.mw = middleware.New(middleware.Options{
		Log: log, RenderError: apiwire.RenderError, MaxBodyBytes: apiwire.MaxBodyBytes, Metrics: opts.Metrics, Proxies: opts.Proxies,
	})
	mux := http.NewServeMux()
	s.routes(mux)
	s.handler = s.mw.Wrap(apiwire.CORS(apiwire.TrimSlash(mux))) // /api/v1/streaming/user/ too, as Mastodon
	return s
}

// Register mounts the streams on mux, the top-level mux: at
// /api/v1/streaming and under it, patterns longer than the client API's
// /api/, so that the mux gives them these paths.
func (s *Server) Register(mux *http.ServeMux) {
	mux.Handle("/api/v1/streaming", s.handler)
	mux.Handle("/api/v1/streaming/", s.handler)
}

// routes registers the streams on mux.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/streaming", s.streamWebSocket)
	mux.HandleFunc("GET /api/v1/streaming/health", streamHealth)
	for path, name := range map[string]string{"user": "user", "user/notification": "user:notification", "direct": "direct",
		"public": "public", "public/local": "public:local", "public/remote": "public:remote",
		"hashtag": "hashtag", "hashtag/local": "hashtag:local", "list": "list"} {
		mux.HandleFunc("GET /api/v1/streaming/"+path, s.streamEvents(name))
	}
	// The top-level mux sends this one /api/v1/streaming and the paths
	// under it only: those of no stream are unknown streams. (Not a
	// pattern "/api/v1/streaming/", which would redirect the trimmed
	// /api/v1/streaming/ with another method to itself.)
	mux.HandleFunc("/", apiwire.Unrouted(mux, unknownStream))
}

// Close ends the live streams, so that their handlers return (a
// WebSocket is sent a close frame, going away, and its handshake
// finishes on its own), and waits until they have: call it
// when the HTTP server shuts down (http.Server.RegisterOnShutdown), as
// Shutdown would otherwise wait for the streams until its deadline, and
// does not wait for WebSockets at all. Other requests finish on their
// own. New streams are refused afterwards.
func (s *Server) Close() { s.hub.Close() }
