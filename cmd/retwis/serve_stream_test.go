package main

import (
	"bufio"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestServeDrainsStreams: a server shutting down ends its live streams
// at once (Server-Sent Events and WebSockets) instead of waiting for
// them until its shutdown deadline.
func TestServeDrainsStreams(t *testing.T) {
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redistest.Start(t).URL,
		store: defaultStoreOptions(), maintainEvery: time.Minute})
	res, err := http.Get(base + "/api/v1/streaming/public")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if first, err := bufio.NewReader(res.Body).ReadString('\n'); err != nil || first != ":)\n" {
		t.Fatalf("the stream began with %q, %v", first, err)
	}
	ws, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(base, "http")+"/api/v1/streaming?stream=public", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	go ws.Read(t.Context()) // answers the close handshake

	start := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutting down with open streams took %v", d)
	}
}

// TestServeMemoryWithoutLiveEvents: the in-memory stand-in for Redis has
// no sharded pub/sub, so the server sends no live events (follows, posts
// and mentions work as ever) and its streams answer 503 at once.
func TestServeMemoryWithoutLiveEvents(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no redis-server to be found
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir(), store: defaultStoreOptions(),
		maintainEvery: time.Minute})
	defer stop()
	browse := func(name string) *http.Client {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		form := url.Values{"username": {name}, "password": {"password1"}, "password2": {"password1"}}
		if res, err := c.PostForm(base+"/register", form); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("register %s: %v %v", name, res, err)
		}
		return c
	}
	alice, bob := browse("alice"), browse("bob")
	for _, step := range []struct {
		c    *http.Client
		path string
		form url.Values
	}{
		{bob, "/u/alice/follow", nil},
		{alice, "/post", url.Values{"status": {"hello @bob"}}},
	} {
		res, err := step.c.PostForm(base+step.path, step.form)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %v %v", step.path, res, err)
		}
		res.Body.Close()
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if page := get(t, bob, base+"/mentions"); strings.Contains(page, "hello") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the mention never reached bob")
		}
	}
	start := time.Now()
	res, err := bob.Get(base + "/api/v1/streaming/user")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || time.Since(start) > 5*time.Second {
		t.Fatalf("a stream of the in-memory server: %d after %v; want 503 at once", res.StatusCode, time.Since(start))
	}
}

// get returns the body of a page.
func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return b.String()
}
