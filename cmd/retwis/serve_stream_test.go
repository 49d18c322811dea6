package main

import (
	"bufio"
	"io"
	"net/http"
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
	t.Parallel()
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

	// The stream ends as the shutdown begins, not at its deadline (10s),
	// however long the rest of the shutdown (the workers, the database)
	// takes on a loaded machine.
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	_, end := io.Copy(io.Discard, res.Body) // nil, or an unexpected EOF where the connection was cut
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the stream ended (%v) %v after the shutdown began", end, d)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
