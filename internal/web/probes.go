package web

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// probeTimeout bounds a probe's questions to Redis, so that a hanging
// node makes the probe fail rather than hang.
const probeTimeout = 2 * time.Second

// livez serves GET /livez: 200 while the process serves HTTP at all. It
// asks nothing of Redis, so that an orchestrator does not restart
// servers because their database is down.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	plain(w, http.StatusOK, "ok\n")
}

// healthz serves GET /healthz: 200 when every Redis node answers, 503
// otherwise, as plain text for load balancers and probes.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	if err := s.store.Health(ctx); err != nil {
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
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	if problems := s.store.Readiness(ctx); len(problems) > 0 {
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
