package web

import (
	"context"
	"net/http"
	"time"
)

// healthz serves GET /healthz: 200 when Redis answers, 503 otherwise, as
// plain text for load balancers and probes.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("health check failed", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("redis unavailable\n"))
		return
	}
	w.Write([]byte("ok\n"))
}
