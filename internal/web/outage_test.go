package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRedisOutage stops Redis under a running server: pages answer 503
// with an explanation, and everything works again once Redis is back,
// without restarting retwis.
func TestRedisOutage(t *testing.T) {
	s := newSite(t)
	b := s.browser()
	b.signUp("survivor")
	expect(t, b.get("/healthz"), 200, "ok")

	s.redis.Stop(t)
	expect(t, b.get("/healthz"), 503, "redis unavailable")
	expect(t, b.get("/"), 503, "database is unavailable")
	expect(t, b.get("/timeline"), 503, "database is unavailable")
	expect(t, s.browser().post("/login", url.Values{"username": {"survivor"}, "password": {"password1"}}), 503, "database is unavailable")
	expect(t, b.post("/post", url.Values{"status": {"into the void"}}), 503, "database is unavailable")
	expect(t, b.post("/u/survivor/follow", nil), 503, "database is unavailable")
	if !strings.Contains(s.logs.String(), "level=ERROR") {
		t.Fatal("the outage was not logged as an error")
	}

	s.redis.Restart(t)
	// The client reconnects by itself; wait for it, without a fixed sleep.
	deadline := time.Now().Add(10 * time.Second)
	for b.get("/healthz").status != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("retwis did not recover after Redis came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	redirects(t, b.post("/post", url.Values{"status": {"still here"}}), "/")
	expect(t, b.get("/"), 200, "Hi, survivor", "still here")
}
