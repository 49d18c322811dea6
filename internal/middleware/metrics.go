package middleware

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics count and time requests by route (the mux pattern that
// served them, never the raw path, so that the series stay few) and
// status.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	routes   sync.Map // route → *routeSeries
}

// routeSeries are the series of one route, resolved from the vectors
// once (WithLabelValues hashes its labels on every call): its latency,
// and its count by status.
type routeSeries struct {
	duration prometheus.Observer
	requests sync.Map // status (int) → prometheus.Counter
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "retwis_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "retwis_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"route"}),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
	return m
}

// register registers c with reg, or returns the collector registered
// already in its place: the interfaces of one server (the pages and the
// API) share the series, told apart by route.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

// noteRoute records r's route (set by the mux) for the metrics of the
// request, after next has run.
func noteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if e, ok := r.Context().Value(enteredKey{}).(*entered); ok {
			e.route = r.Pattern
		}
	})
}

// observe counts a finished request.
func (m *httpMetrics) observe(route string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	rs := m.series(route)
	rs.count(m.requests, route, status).Inc()
	rs.duration.Observe(d.Seconds())
}

// series returns the series of route, resolved on its first request.
// Routes are the mux's patterns, so that the map stays small.
func (m *httpMetrics) series(route string) *routeSeries {
	if rs, ok := m.routes.Load(route); ok {
		return rs.(*routeSeries)
	}
	rs, _ := m.routes.LoadOrStore(route, &routeSeries{duration: m.duration.WithLabelValues(route)})
	return rs.(*routeSeries)
}

// count returns the counter of the route's answers with status,
// resolved from requests on the first of them.
func (rs *routeSeries) count(requests *prometheus.CounterVec, route string, status int) prometheus.Counter {
	if c, ok := rs.requests.Load(status); ok {
		return c.(prometheus.Counter)
	}
	c, _ := rs.requests.LoadOrStore(status, requests.WithLabelValues(route, strconv.Itoa(status)))
	return c.(prometheus.Counter)
}
