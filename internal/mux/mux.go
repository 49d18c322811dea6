// Package mux composes retwis's HTTP interfaces into the one handler a
// server runs: a top-level http.ServeMux on which the probes
// (internal/probes) take their three paths and the pages (internal/web)
// every other path but those of the client API
// (internal/api: everything under /api/, OAuth's token and revocation
// endpoints) and of its streaming transports (internal/streaming:
// /api/v1/streaming and under it). Each interface keeps its own
// middleware stack (the pages' cross-origin protection and cookies; the
// API's JSON errors, CORS and request timeout; the streams' without
// it); none knows of the others. `retwis serve` runs this handler, and
// so do the tests that start a whole server
// (internal/testkit/servertest), so that what they test is what runs.
package mux

import (
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/probes"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/streaming"
	"github.com/retwis/retwis/internal/web"
	"github.com/retwis/retwis/internal/web/page"
)

// Options configure a Handler. The fields before Pages are every
// interface's: New sets them in Pages, API and Streaming.
type Options struct {
	// Store is the database every interface reads and writes; Log
	// receives their request lines and failures (nil: slog.Default()).
	Store *store.Store
	Log   *slog.Logger
	// Media takes and serves pictures, for the pages and the API, and
	// its files and avatars are served here (nil: none, for a server
	// that only delivers posts).
	Media *media.Service
	// Metrics, if not nil, receives the request metrics of every
	// interface, by route.
	Metrics prometheus.Registerer
	// Writes is how many posts, follows and deletions run at once, in
	// each interface (see web.Options.Writes); zero means no limit.
	Writes int
	// Proxies are the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, for the
	// limits per client address.
	Proxies []netip.Prefix
	// ProbesOnly serves the probes (/livez, /healthz, /readyz) and
	// nothing else: a server that only delivers posts.
	ProbesOnly bool
	// PublicURL is the URL the server is reached at, which every
	// absolute URL it writes begins with; configured, it is the only
	// host answered but for the probes (see middleware.PublicURL.Only).
	// Zero: each request's own scheme and host.
	PublicURL middleware.PublicURL

	// Pages, API and Streaming are what is each interface's own.
	Pages     web.Options
	API       api.Options
	Streaming streaming.Options
}

// Handler is the handler of a retwis server: every interface on one mux,
// behind the public URL.
type Handler struct {
	mux     *http.ServeMux
	handler http.Handler      // mux behind the public URL
	streams *streaming.Server // nil with ProbesOnly
}

// New returns a Handler; it fails only if the pages' templates are
// broken.
func New(opts Options) (*Handler, error) {
	h := &Handler{mux: http.NewServeMux()}
	// The probes are answered whatever the Host header: load balancers
	// and orchestrators call them by address.
	h.handler = opts.PublicURL.Only(probes.Paths, h.mux)
	probes.New(probes.Options{DB: opts.Store.DB, Log: opts.Log, Metrics: opts.Metrics, Proxies: opts.Proxies}).Register(h.mux)
	if opts.ProbesOnly {
		return h, nil
	}
	pageOpts := opts.Pages
	pageOpts.Store, pageOpts.Log, pageOpts.Metrics, pageOpts.Writes, pageOpts.Proxies = opts.Store, opts.Log, opts.Metrics, opts.Writes, opts.Proxies
	pageOpts.Media = opts.Media
	pageOpts.Deleter = deletion.New(opts.Store) // the pages' account deletion
	pages, err := web.New(pageOpts)
	if err != nil {
		return nil, err
	}
	pages.Register(h.mux)
	apiOpts := opts.API
	apiOpts.Store, apiOpts.Log, apiOpts.Metrics, apiOpts.Writes, apiOpts.Proxies = opts.Store, opts.Log, opts.Metrics, opts.Writes, opts.Proxies
	apiOpts.Media = opts.Media
	if opts.Media != nil {
		opts.Media.Routes(h.mux)
	}
	clientAPI := api.New(apiOpts)
	clientAPI.Register(h.mux)
	streamOpts := opts.Streaming
	streamOpts.Store, streamOpts.Log, streamOpts.Metrics, streamOpts.Proxies = opts.Store, opts.Log, opts.Metrics, opts.Proxies
	streamOpts.API = clientAPI.Kit              // renders the events' entities
	streamOpts.Session = page.SessionCredential // the pages listen to the streams
	h.streams = streaming.New(streamOpts)
	h.streams.Register(h.mux)
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Close ends the live streams and waits until their handlers have
// returned (see streaming.Server.Close): call it when the HTTP server
// shuts down (http.Server.RegisterOnShutdown). Other requests finish on
// their own.
func (h *Handler) Close() {
	if h.streams != nil {
		h.streams.Close()
	}
}
