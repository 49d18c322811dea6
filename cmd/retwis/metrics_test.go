package main

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestMetrics runs a server with its metrics on a separate address and
// checks that requests, Redis calls, the cache, delivery and the
// password-hashing queue show in them, that the profiler is served
// beside them, and that the pages serve neither.
func TestMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	redis := redistest.Start(t)
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, metricsAddr: addr})
	defer stop()
	alice, bob := newUser(t, base), newUser(t, base)
	alice.signUp("alice")
	bob.signUp("bob")
	bob.post("/u/alice/follow", nil)
	alice.post("/post", url.Values{"status": {"measured"}})
	bob.get("/")
	if status, _ := bob.get("/metrics"); status != http.StatusNotFound {
		t.Fatalf("the pages serve /metrics (%d)", status)
	}
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body = string(b)
		if strings.Contains(body, `retwis_delivery_jobs_total{kind="deliver",outcome="done"} 1`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`retwis_http_requests_total{route="POST /register",status="303"} 2`,
		`retwis_http_request_duration_seconds_bucket{route="GET /{$}"`,
		`retwis_redis_call_duration_seconds_count{call="pipeline"}`,
		`retwis_cache_reads_total{result="miss"}`,
		`retwis_delivery_jobs_total{kind="deliver",outcome="done"} 1`,
		`retwis_delivery_delay_seconds_count 1`,
		`retwis_delivery_backlog 0`,
		`retwis_delivery_oldest_pending_seconds 0`,
		`retwis_password_hashes_in_progress 0`,
		`retwis_redis_node_up{node=`,
		`retwis_redis_node_rtt_seconds{node=`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
	res, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "goroutine profile:") {
		t.Errorf("the metrics address serves no goroutine profile: %s %.200s", res.Status, b)
	}
	if status, _ := bob.get("/debug/pprof/"); status != http.StatusNotFound {
		t.Errorf("the pages serve the profiler (%d)", status)
	}
}
