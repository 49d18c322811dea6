// Package probes answers the questions load balancers and orchestrators
// ask a server, as short plain text: is the process serving (/livez),
// does every Redis node answer (/healthz), should the server receive
// traffic (/readyz). It has a middleware stack of its own (the request
// log and metrics, security headers, panic recovery), and internal/mux
// mounts it beside the other interfaces, or alone on a server that only
// delivers posts.
package probes

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/kernel"
)

// Paths are the paths of the probes.
var Paths = []string{"/livez", "/healthz", "/readyz"}

// timeout bounds a probe's questions to Redis, so that a hanging node
// makes the probe fail rather than hang.
const timeout = 2 * time.Second

// Options configure a Server.
type Options struct {
	DB *kernel.DB // the database whose health the probes tell
	// Log receives the request lines and failures (nil: slog.Default());
	// Metrics, if not nil, the request metrics.
	Log     *slog.Logger
	Metrics prometheus.Registerer
	// Proxies are the proxies whose X-Forwarded-Proto is believed (an
	// answer over HTTPS carries HSTS, as every other does).
	Proxies []netip.Prefix
}

// Server answers the probes.
type Server struct {
	db      *kernel.DB
	log     *slog.Logger
	handler http.Handler // the probes behind the middleware
}

// New returns a Server.
func New(opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	s := &Server{db: opts.DB, log: log}
	mw := middleware.New(middleware.Options{Log: log, Metrics: opts.Metrics, Proxies: opts.Proxies, RenderError: func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		plain(w, status, msg+"\n")
	}})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", s.livez)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	s.handler = mw.Wrap(mux)
	return s
}

// Register registers the probes on mux.
func (s *Server) Register(mux *http.ServeMux) {
	for _, path := range Paths {
		mux.Handle(path, s.handler)
	}
}

// livez serves GET /livez: 200 while the process serves HTTP at all. It
// asks nothing of Redis, so that an orchestrator does not restart
// servers because their database is down.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	plain(w, http.StatusOK, "ok\n")
}

// healthz serves GET /healthz: 200 when every Redis node answers, 503
// otherwise, as plain text for load balancers and probes.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if err := s.db.Health(ctx); err != nil {
		s.log.Warn("health check failed", "err", err)
		plain(w, http.StatusServiceUnavailable, "redis unavailable\n")
		return
	}
	plain(w, http.StatusOK, "ok\n")
}

// readyz serves GET /readyz: 200 when the server should receive traffic,
// else 503 with one line per reason (a node down, a cluster not ok, a
// full Redis, a database that lost its data).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if problems := s.db.Readiness(ctx); len(problems) > 0 {
		plain(w, http.StatusServiceUnavailable, strings.Join(problems, "\n")+"\n")
		return
	}
	plain(w, http.StatusOK, "ready\n")
}

// plain writes a short uncached plain-text answer.
func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(text))
}
