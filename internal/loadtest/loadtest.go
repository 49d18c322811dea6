// Package loadtest drives an HTTP server with simulated users; it backs
// `retwis bench`.
//
// Run opens a fixed number of keep-alive connections, each sending one
// request at a time (a closed-loop load generator, like wrk), and reports
// throughput, latency percentiles and errors. Latencies go into per-
// connection log-linear histograms, so memory does not grow with the
// length of the run.
package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Request is one HTTP request a simulated user sends.
type Request struct {
	Method string     // GET or POST; empty means GET
	Path   string     // e.g. "/" or "/u/alice?before=12", relative to Options.BaseURL
	Form   url.Values // POST body, sent as application/x-www-form-urlencoded; nil for GET
	Bearer string     // if not empty, an API access token, sent as "Authorization: Bearer <token>"
}

// Options configure a run.
type Options struct {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:8080".
	BaseURL string
	// Connections is the number of concurrent connections, each its own
	// TCP connection kept alive and served by one goroutine.
	Connections int
	// Duration is how long to start new requests. Requests in flight when
	// it ends are allowed to finish, so that a run does not end with a
	// burst of artificial errors.
	Duration time.Duration
	// Cookies, if not empty, are values of the cookie CookieName:
	// connection i sends Cookies[i%len(Cookies)], so that it acts as one
	// logged-in user.
	Cookies    []string
	CookieName string
	// Next returns what connection conn sends next. It is called from
	// conn's goroutine only, so it may keep per-connection state without
	// locking. rng belongs to conn and is seeded from conn alone, so a
	// connection's sequence of requests is the same from run to run.
	Next func(conn int, rng *rand.Rand) Request
	// Timeout bounds each request, including reading its body; a request
	// that takes longer counts as an error. Zero means 10s.
	Timeout time.Duration
}

// DefaultTimeout is the per-request timeout when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Result summarises a run.
type Result struct {
	Requests int64 // requests completed, successful or not
	// Errors counts transport errors, timeouts and statuses >= 400. A
	// 3xx is a success: redirects are not followed, since retwis answers
	// every successful form post with one.
	Errors  int64
	Elapsed time.Duration // from start until the last connection finished
	RPS     float64       // Requests per second of Elapsed

	// Latency percentiles over all requests, failed ones included, from
	// sending the request to reading the last byte of the body. They are
	// accurate to about 1%; Max is exact.
	P50, P90, P99, Max time.Duration

	// ErrorSamples are up to 5 distinct error descriptions, such as
	// "POST /post: status 500", to show what the errors were.
	ErrorSamples []string
}

const maxErrorSamples = 5

// Run sends requests as opts describe until opts.Duration has passed or
// ctx is cancelled, and summarises them. Cancelling ctx aborts the
// requests in flight, which are then not counted, and returns what was
// measured until then. The error is non-nil only for invalid options.
func Run(ctx context.Context, opts Options) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	// New requests stop at the deadline; requests in flight run under ctx
	// alone (see Options.Duration).
	sending, stop := context.WithTimeout(ctx, opts.Duration)
	defer stop()

	conns := make([]*connection, opts.Connections)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range conns {
		conns[i] = newConnection(i, &opts)
		wg.Go(func() { conns[i].run(ctx, sending) })
	}
	wg.Wait()
	return summarise(conns, time.Since(start)), nil
}

// validate checks opts and fills in defaults.
func (o *Options) validate() error {
	u, err := url.Parse(o.BaseURL)
	switch {
	case err != nil:
		return fmt.Errorf("loadtest: base URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("loadtest: base URL %q is not an absolute http(s) URL", o.BaseURL)
	case o.Connections < 1:
		return errors.New("loadtest: need at least one connection")
	case o.Duration <= 0:
		return errors.New("loadtest: duration must be positive")
	case o.Next == nil:
		return errors.New("loadtest: Next is nil")
	case len(o.Cookies) > 0 && o.CookieName == "":
		return errors.New("loadtest: Cookies need a CookieName")
	case o.Timeout < 0:
		return errors.New("loadtest: timeout must not be negative")
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	return nil
}

// summarise merges the connections' measurements.
func summarise(conns []*connection, elapsed time.Duration) Result {
	h := newHistogram()
	r := Result{Elapsed: elapsed}
	seen := make(map[string]bool)
	for _, c := range conns {
		h.merge(c.latency)
		r.Requests += c.requests
		r.Errors += c.errors
		for _, s := range c.samples {
			if !seen[s] && len(r.ErrorSamples) < maxErrorSamples {
				seen[s] = true
				r.ErrorSamples = append(r.ErrorSamples, s)
			}
		}
	}
	if elapsed > 0 {
		r.RPS = float64(r.Requests) / elapsed.Seconds()
	}
	if r.Requests > 0 {
		r.P50, r.P90, r.P99 = h.quantile(0.50), h.quantile(0.90), h.quantile(0.99)
		r.Max = time.Duration(h.max)
	}
	return r
}

// String formats r on one line, e.g.
//
//	12345 req  4115.0 req/s  p50 1.2ms  p90 3.4ms  p99 9.9ms  max 20ms  errors 0
func (r Result) String() string {
	return fmt.Sprintf("%d req  %.1f req/s  p50 %v  p90 %v  p99 %v  max %v  errors %d",
		r.Requests, r.RPS, round(r.P50), round(r.P90), round(r.P99), round(r.Max), r.Errors)
}

// round keeps two or three significant digits (1.2ms, 20ms, 345µs): the
// histogram is no more precise than that, and a report reads better.
func round(d time.Duration) time.Duration {
	unit := time.Nanosecond
	for _, u := range []time.Duration{time.Microsecond, time.Millisecond, time.Second} {
		if d >= u {
			unit = u
		}
	}
	if d < 10*unit {
		return d.Round(unit / 10)
	}
	return d.Round(unit)
}
