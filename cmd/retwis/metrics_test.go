package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// TestMetrics runs a server with its metrics on a separate address and
// checks that requests, Redis calls, the cache, delivery and the
// password-hashing queue show in them, that the profiler is served
// beside them, and that the pages serve neither.
func TestMetrics(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	// A port of its own, which the log names: a free port found before
	// may be taken by another test before serve listens on it.
	var log syncbuf.Buffer
	base, stop := startServeLogging(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, metricsAddr: "127.0.0.1:0"}, &log)
	defer stop()
	metrics, ok := metricsURL(log.String())
	if !ok {
		t.Fatalf("the log does not say where the metrics are:\n%s", log.String())
	}
	debug := strings.TrimSuffix(metrics, "/metrics") + "/debug/pprof/goroutine?debug=1"
	alice, bob := newUser(t, base), newUser(t, base)
	alice.signUp("alice")
	bob.signUp("bob")
	bob.post("/u/alice/follow", nil)
	alice.post("/post", url.Values{"status": {"measured"}})
	bob.get("/")
	if status, _ := bob.get("/metrics"); status != http.StatusNotFound {
		t.Fatalf("the pages serve /metrics (%d)", status)
	}
	wants := []string{
		`retwis_http_requests_total{route="POST /register",status="303"} 2`,
		`retwis_http_request_duration_seconds_bucket{route="GET /{$}"`,
		`retwis_redis_call_duration_seconds_count{call="pipeline"}`,
		`retwis_cache_reads_total{result="miss"}`,
		`retwis_delivery_jobs_total{kind="deliver",outcome="done"} 1`,
		`retwis_delivery_delay_seconds_count 1`,
		`retwis_delivery_backlog 0`,
		`retwis_delivery_oldest_pending_seconds 0`,
		`retwis_password_hashes_in_progress 0`,
		`retwis_password_hashes_waiting{lane="known"} 0`,
		`retwis_password_hashes_waiting{lane="unknown"} 0`,
		`retwis_redis_node_up{node=`,
		`retwis_redis_node_rtt_seconds{node=`,
		`go_goroutines`,
	}
	// The delivery's figures settle once its jobs are done: wait for
	// every line, then report those still missing.
	var missing []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(metrics)
		if err != nil {
			t.Fatal(err)
		}
		b := must.Value(io.ReadAll(res.Body))(t)
		res.Body.Close()
		missing = missing[:0]
		for _, want := range wants {
			if !strings.Contains(string(b), want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range missing {
		t.Errorf("the metrics lack %s", want)
	}
	res, err := http.Get(debug)
	if err != nil {
		t.Fatal(err)
	}
	b := must.Value(io.ReadAll(res.Body))(t)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "goroutine profile:") {
		t.Errorf("the metrics address serves no goroutine profile: %s %.200s", res.Status, b)
	}
	if status, _ := bob.get("/debug/pprof/"); status != http.StatusNotFound {
		t.Errorf("the pages serve the profiler (%d)", status)
	}
}

// TestTwoServersOnOneHost starts two servers with the default metrics
// settings, as `make run` twice with another RETWIS_ADDR does: both
// start, each serving its metrics on a port of its own (the default's
// or, for the second, a free one, which the log names), on one host.
func TestTwoServersOnOneHost(t *testing.T) {
	redis := redistest.Start(t)
	var urls []string
	var stops sync.WaitGroup
	// Both stop at once: each waits for its workers' blocking reads.
	defer stops.Wait()
	for range 2 {
		cfg, err := parseServe([]string{"--addr", "127.0.0.1:0", "--redis", redis.URL}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var log syncbuf.Buffer
		_, stop := startServeLogging(t, cfg, &log)
		defer stops.Go(func() { stop() })
		u, ok := metricsURL(log.String())
		if !ok {
			t.Fatalf("the log does not say where the metrics are:\n%s", log.String())
		}
		urls = append(urls, u)
	}
	if urls[0] == urls[1] {
		t.Fatalf("both servers serve their metrics at %s", urls[0])
	}
	for _, u := range urls {
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", u, res.Status)
		}
	}
}

// TestMetricsAddressInUse: a metrics address the operator chose that is
// in use stops the server with an error that names the flag and its
// variable (as does the address of the pages); the default in use gives
// way to a free port. In parallel: its addresses are its own (the
// default is stood for by its listener's), unlike TestTwoServersOnOneHost.
func TestMetricsAddressInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	redis := redistest.Start(t)
	cfg := serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, metricsAddr: l.Addr().String(), dataDir: t.TempDir()}
	err = serve(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "--metrics-addr") || !strings.Contains(err.Error(), "RETWIS_METRICS_ADDR") {
		t.Fatalf("serve with its metrics address in use: %v; want an error naming --metrics-addr and RETWIS_METRICS_ADDR", err)
	}

	// Likewise the address of the pages.
	err = serve(t.Context(), serveConfig{addr: l.Addr().String(), redisURL: redis.URL, dataDir: t.TempDir()}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "--addr") || !strings.Contains(err.Error(), "RETWIS_ADDR") {
		t.Fatalf("serve with its address in use: %v; want an error naming --addr and RETWIS_ADDR", err)
	}

	cfg.metricsFallback = true
	var log syncbuf.Buffer
	_, stop := startServeLogging(t, cfg, &log)
	defer stop()
	u, ok := metricsURL(log.String())
	if !ok || strings.Contains(u, l.Addr().String()) || !strings.Contains(log.String(), "--metrics-addr") {
		t.Fatalf("the default metrics address in use: metrics at %q; log:\n%s", u, log.String())
	}
}

// metricsURL returns where the log says the metrics are served.
func metricsURL(log string) (string, bool) {
	for line := range strings.Lines(log) {
		if strings.Contains(line, `msg="metrics are served"`) {
			_, u, ok := strings.Cut(strings.TrimSpace(line), " url=")
			return u, ok
		}
	}
	return "", false
}
