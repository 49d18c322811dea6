package middleware

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrorRenderer writes an error response in an interface's own format,
// with the given status and a message fit to show a user.
type ErrorRenderer func(w http.ResponseWriter, r *http.Request, status int, message string)

// Options configure a Stack.
type Options struct {
	// Log receives the request lines and the failures; nil means
	// slog.Default().
	Log *slog.Logger
	// RenderError writes every error response the Stack answers. Required.
	RenderError ErrorRenderer
	// MaxBodyBytes caps every request body; reading past it fails with
	// *http.MaxBytesError. Zero means no cap.
	MaxBodyBytes int64
	// Timeout bounds each request through its context. Zero means none.
	Timeout time.Duration

	// Auth resolves the credential that Credential extracts from a request
	// to its viewer, for the handlers wrapped by [Stack.Viewer].
	Auth       Authenticator
	Credential Credential
	// Metrics, if not nil, receives the request metrics
	// (retwis_http_requests_total, retwis_http_request_duration_seconds).
	Metrics prometheus.Registerer
	// Refused, if not nil, is called for a request whose credential Auth
	// refused (kind Unauthorized), before the request goes on without a
	// viewer: the HTML interface clears its stale cookie there.
	Refused func(w http.ResponseWriter, r *http.Request)
	// Writes is how many requests wrapped by [Stack.Throttle] run at once;
	// zero means no limit.
	Writes int
	// Proxies are the reverse proxies whose forwarded headers are
	// believed, for [ClientAddr] and [Secure]; none by default.
	Proxies Proxies
	// LogStatic logs a line for every answer of the handlers behind
	// [Stack.WrapStatic]; by default only those that fail (a status of
	// 400 or more) or took StaticSlow or longer are logged, the others
	// only counted in the metrics.
	LogStatic bool
}

// Stack is the middleware of one HTTP interface. It keeps no state
// between requests but the write slots in use.
type Stack struct {
	opts     Options
	log      *slog.Logger
	metrics  *httpMetrics  // nil without Options.Metrics
	errorLog logLimiter    // paces the error lines of failed requests
	writes   chan struct{} // a token for each throttled request running; nil: no limit
}

// New returns the Stack configured by opts.
func New(opts Options) *Stack {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	s := &Stack{opts: opts, log: log}
	if opts.Writes > 0 {
		s.writes = make(chan struct{}, opts.Writes)
	}
	if opts.Metrics != nil {
		s.metrics = newHTTPMetrics(opts.Metrics)
	}
	return s
}

// Wrap returns next behind the middleware every request passes: the
// client read through the trusted proxies, the request log line and
// metrics, the security headers, the deadline, panic recovery and the
// body cap, in this order from the outside in.
func (s *Stack) Wrap(next http.Handler) http.Handler {
	return s.logRequests(secureHeaders(s.limitTime(s.recoverPanics(s.limitBodies(noteRoute(next))))))
}

// WrapStatic returns next, a handler of files held in memory registered
// at route, behind what it needs of Wrap: the security headers every
// answer carries, panic recovery, the metrics, and the request log line
// of an answer that failed or was slow (Options.LogStatic: of every
// answer). It leaves out what only pages need: the deadline (next waits
// on nothing), the body cap (next reads no body) and the client noted
// in the request's context (nothing downstream asks for it).
func (s *Stack) WrapStatic(route string, next http.Handler) http.Handler {
	next = s.recoverPanics(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		setSecureHeaders(w.Header(), s.opts.Proxies.Secure(r))
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.finish(r, route, rec.status, start, !s.opts.LogStatic)
	})
}
