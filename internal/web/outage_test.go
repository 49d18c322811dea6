package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/must"
)

// TestRedisOutage stops Redis under a running server: pages answer 503
// with an explanation, and everything works again once Redis is back,
// without restarting retwis.
//
// Not in parallel: it times the recovery.
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
	if n := strings.Count(s.logs.String(), `msg="request failed"`); n >= 6 {
		t.Fatalf("6 failed requests gave %d error lines: the outage is logged once per request, not paced", n)
	}

	s.redis.Restart(t)
	// The client reconnects by itself; wait for it, without a fixed sleep.
	// A connection the restart closed fails the first command sent on it
	// (retwis does not resend: not every write is safe to repeat), so
	// service is back when a page and a post both go through.
	back := time.Now()
	for b.get("/").status != http.StatusOK || b.post("/post", url.Values{"status": {"still here"}}).status != http.StatusSeeOther {
		if time.Since(back) > 10*time.Second {
			t.Fatal("retwis did not recover after Redis came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := time.Since(back); d > 2*time.Second {
		t.Errorf("pages and posts were served again only %s after Redis was back; want within 2s", d.Round(time.Millisecond))
	}
	expect(t, b.get("/"), 200, "Hi, survivor", "still here")
}

// TestClientWentAway lets a visitor give up while Redis is paused: the
// request is logged with status 499 and nothing is logged as an error,
// although the store saw its wait for Redis cut short.
//
// Not in parallel: the request must reach Redis within the pause.
func TestClientWentAway(t *testing.T) {
	s := newSite(t)
	if err := s.do("CLIENT", "PAUSE", "1000", "ALL").Error(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	req := must.Value(http.NewRequestWithContext(ctx, "GET", s.srv.URL+"/timeline", nil))(t)
	if res, err := s.srv.Client().Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the request was answered (%d) while Redis was paused", res.StatusCode)
	}
	want := regexp.MustCompile(`level=INFO msg=request method=GET path=/timeline status=499 duration=[0-9.]+[µm]?s`)
	deadline := time.Now().Add(5 * time.Second)
	for !want.MatchString(s.logs.String()) { // logged once the handler gives up
		if time.Now().After(deadline) {
			t.Fatalf("no request line matching %s in the log:\n%s", want, s.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(s.logs.String(), "level=ERROR") {
		t.Fatalf("a visitor who went away was logged as an error:\n%s", s.logs.String())
	}
}
