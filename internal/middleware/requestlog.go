package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// StatusClientClosed is the status logged, never sent, for a request
// whose client went away before the answer: nginx's 499.
const StatusClientClosed = 499

// statusRecorder remembers the status a handler wrote, for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the first status written.
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records the implicit 200 of a body written without a status.
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap returns the ResponseWriter underneath, so that
// http.ResponseController (the streams' flushes and write deadlines) and
// WebSocket upgrades reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// StaticSlow is how long an answer of a file held in memory may take
// before it is logged whatever Options.LogStatic says: a server too busy
// to send a file at once.
const StaticSlow = 100 * time.Millisecond

// logRequests notes the request's client (see [ClientAddr], [Secure]),
// then writes one log line per request, and counts it in the metrics (see
// finish).
func (s *Stack) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		r, e := s.enter(r)
		next.ServeHTTP(rec, r)
		s.finish(r, e.route, rec.status, start, false)
	})
}

// finish logs a request that began at start and was answered with
// status (0: none written, which net/http sends as 200), and counts it in
// the metrics under route; quiet leaves out the line of an answer below
// 400 that took less than StaticSlow. A request whose client went away
// is logged with StatusClientClosed, at Info like the others.
func (s *Stack) finish(r *http.Request, route string, status int, start time.Time, quiet bool) {
	switch {
	case r.Context().Err() == context.Canceled:
		status = StatusClientClosed
	case status == 0:
		status = http.StatusOK
	}
	d := time.Since(start)
	if !(quiet && status < 400 && d < StaticSlow) && s.log.Enabled(r.Context(), slog.LevelInfo) {
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", status), slog.Duration("duration", d))
	}
	if s.metrics != nil {
		s.metrics.observe(route, status, d)
	}
}
