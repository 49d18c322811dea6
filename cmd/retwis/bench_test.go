package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestBench seeds a small network into a real Redis, serves it, and runs
// every scenario and the growth curves at a tiny scale: the figures are
// not checked, but the report, the absence of errors and the charts are.
func TestBench(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	// Pipelines of the seeding, and the server's commands, may take more
	// than a production second on two cores shared with other tests.
	cfg := serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, store: defaultStoreOptions()}
	cfg.store.CommandTimeout = storetest.CommandTimeout
	base, stop := startServe(t, cfg)
	defer stop()
	dir := t.TempDir()
	var out bytes.Buffer
	status := run(t.Context(), []string{"bench", "--url", base, "--redis", redis.URL, "--seed",
		"--users", "120", "--posts", "3000", "--follows", "8", "--connections", "4", "--duration", "100ms",
		"--curves", dir, "--max-followers", "1000", "--command-timeout", storetest.CommandTimeout.String()}, &out, &out)
	report := out.String()
	if status != 0 {
		t.Fatalf("bench exited %d:\n%s", status, report)
	}
	for _, want := range []string{"seeded in", "per timeline entry", "per archived entry", "static", "healthz", "home", "profile", "timeline", "api-home", "notifications", "api-notifications", "tag", "thread", "post", "post-rich", "mixed",
		"followed users", "delivery of one post", "posts fully delivered", "backlog peak", "post to its last follower", "home page, while posting", "home page by depth", "entries/s"} {
		if !strings.Contains(report, want) {
			t.Fatalf("report lacks %q:\n%s", want, report)
		}
	}
	rows := regexp.MustCompile(`(?m)^(static|healthz|home|profile|timeline|api-home|notifications|api-notifications|tag|thread|post|post-rich|mixed) .* (\d+)$`).FindAllStringSubmatch(report, -1)
	if len(rows) != 13 {
		t.Fatalf("found %d scenario rows; want 13:\n%s", len(rows), report)
	}
	for _, r := range rows {
		if r[2] != "0" {
			t.Fatalf("scenario %s had %s errors:\n%s", r[1], r[2], report)
		}
	}
	for _, name := range []string{"home-latency.svg", "page-depth.svg", "delivery.svg", "delivery-rate.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
