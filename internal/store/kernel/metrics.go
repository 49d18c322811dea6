package kernel

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/schema"
)

// metrics are the store's Prometheus metrics; a nil *Metrics records
// nothing.
type Metrics struct {
	calls  *prometheus.HistogramVec // retwis_redis_call_duration_seconds{call}
	errors *prometheus.CounterVec   // retwis_redis_errors_total{kind}
	cache  *prometheus.CounterVec   // retwis_cache_reads_total{result}
	// hits and misses are cache's two series, resolved once: a page
	// counts its reads in a batch, and WithLabelValues hashes its labels
	// on every call.
	hits, misses prometheus.Counter
	jobs         *prometheus.CounterVec // retwis_delivery_jobs_total{kind,outcome}
	delivered    prometheus.Histogram   // retwis_delivery_delay_seconds
}

// newMetrics registers the store's metrics with reg, the gauges reading
// s when scraped.
func newMetrics(reg prometheus.Registerer, db *DB) *Metrics {
	m := &Metrics{
		calls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "retwis_redis_call_duration_seconds", Help: "Latency of calls to Redis (a pipeline is one call), by kind of call.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"call"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "retwis_redis_errors_total", Help: "Errors of Redis operations, by kind: unavailable (no answer: timeouts, connections, an open circuit), " +
				"full (OOM), a refusal by its class (noreplicas, readonly, masterdown, loading, busy, tryagain, clusterdown), " +
				"canceled, internal (a bug or damaged data).",
		}, []string{"kind"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "retwis_cache_reads_total", Help: "Reads through the client-side cache, by result: hit or miss.",
		}, []string{"result"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "retwis_delivery_jobs_total", Help: "Delivery jobs carried out, by kind and outcome (done, failed).",
		}, []string{"kind", "outcome"}),
		delivered: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "retwis_delivery_delay_seconds", Help: "Time from a post to its delivery to the last of its followers.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}),
	}
	m.hits, m.misses = m.cache.WithLabelValues("hit"), m.cache.WithLabelValues("miss")
	reg.MustRegister(m.calls, m.errors, m.cache, m.jobs, m.delivered, redisconn.NewCollector(db.Nodes),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "retwis_delivery_backlog", Help: "Delivery jobs queued or running, on every shard of the schema.Queue (-1: unknown).",
		}, func() float64 {
			return db.gauge(func(ctx context.Context) (float64, error) { n, err := db.DeliveryBacklog(ctx); return float64(n), err })
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "retwis_delivery_oldest_pending_seconds", Help: "Age of the oldest delivery job read by a worker and not done (-1: unknown).",
		}, func() float64 { return db.gauge(db.oldestPending) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "retwis_password_hashes_in_progress", Help: "Password hashes being computed; at most one per core, the rest wait, clients in turn.",
		}, func() float64 { return float64(db.Hasher.InProgress()) }),
		hashesWaiting(db.Hasher, "unknown", func(unknown, _ int) int { return unknown }),
		hashesWaiting(db.Hasher, "known", func(_, known int) int { return known }),
	)
	if c := db.circuits(); c != nil {
		reg.MustRegister(c)
	}
	return m
}

// hashesWaiting is the gauge of the password hashes waiting in one lane
// of h (lane: known or unknown, which of Waiting's counts pick returns).
func hashesWaiting(h *password.Hasher, lane string, pick func(unknown, known int) int) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "retwis_password_hashes_waiting",
		Help:        "Password hashes waiting for a hasher, by lane: known devices, or unknown clients.",
		ConstLabels: prometheus.Labels{"lane": lane},
	}, func() float64 { return float64(pick(h.Waiting())) })
}

// gauge reads a value from Redis for a scrape, within a second; -1 when
// it cannot be read.
func (db *DB) gauge(read func(ctx context.Context) (float64, error)) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	v, err := read(ctx)
	if err != nil {
		return -1
	}
	return v
}

// oldestPending returns the age in seconds of the oldest delivery job that
// a worker read and has not finished, on any shard (0 for none).
func (db *DB) oldestPending(ctx context.Context) (float64, error) {
	var oldest int64
	for n := range schema.QueueShards {
		arr, err := db.C.Do(ctx, db.C.B().Xpending().Key(schema.QueueN(n).Stream).Group(schema.DeliveryGroup).Build()).ToArray()
		if err != nil || len(arr) < 2 {
			return 0, err
		}
		first, err := arr[1].ToString()
		if err != nil { // no pending entries: a nil
			continue
		}
		ms, _ := strconv.ParseInt(strings.SplitN(first, "-", 2)[0], 10, 64)
		if oldest == 0 || ms < oldest {
			oldest = ms
		}
	}
	if oldest == 0 {
		return 0, nil
	}
	return time.Since(time.UnixMilli(oldest)).Seconds(), nil
}

func (m *Metrics) Call(name string, start time.Time) {
	if m != nil {
		m.calls.WithLabelValues(name).Observe(time.Since(start).Seconds())
	}
}

// Failed counts a failed Redis operation under kind: "unavailable" (no
// answer), "full", the class of a refusal (redisconn.Refusal),
// "canceled" or "internal".
func (m *Metrics) Failed(kind string) {
	if m != nil {
		m.errors.WithLabelValues(kind).Inc()
	}
}

// CacheReads counts a batch's reads through the client-side cache: hits
// answered by it, misses read from Redis.
func (m *Metrics) CacheReads(hits, misses int) {
	if m == nil {
		return
	}
	m.hits.Add(float64(hits))
	m.misses.Add(float64(misses))
}

// Job counts a finished job of kind, on post; for a delivered post with a generated id,
// it also records how long the post took to reach every follower.
func (m *Metrics) Job(kind string, post int64, err error) {
	if m == nil {
		return
	}
	outcome := "done"
	if err != nil {
		outcome = "failed"
	}
	m.jobs.WithLabelValues(kind, outcome).Inc()
	if at := snowflake.Time(post); err == nil && kind == schema.JobDeliver && !at.IsZero() {
		m.delivered.Observe(time.Since(at).Seconds())
	}
}
