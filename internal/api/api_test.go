package api_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// server is a retwis server (the pages, the API and its streams, as
// `retwis serve` runs them) on a real Redis, with a delivery worker.
type server struct{ *servertest.Server }

// newServer starts a server on a Redis of its own.
func newServer(t testing.TB) *server {
	return newServerAt(t, redistest.Start(t).URL)
}

// newServerAt starts a server on the Redis (or cluster) at redisURL.
func newServerAt(t testing.TB, redisURL string) *server {
	t.Helper()
	return newServerWith(t, redisURL, api.Options{}, nil)
}

// newServerWith starts a server as newServerAt does, with the API's
// options opts (the store, log and session are the server's; the pages
// trust its Proxies too), its HTTP server started by start (if not nil:
// httptest.NewServer).
func newServerWith(t testing.TB, redisURL string, opts api.Options, start func(http.Handler) *httptest.Server) *server {
	t.Helper()
	return newServerStore(t, redisURL, opts, store.Options{}, start)
}

// newServerStore is newServerWith with the store's options too (its log
// is the server's).
func newServerStore(t testing.TB, redisURL string, opts api.Options, storeOpts store.Options, start func(http.Handler) *httptest.Server) *server {
	t.Helper()
	return &server{servertest.Start(t, redisURL, servertest.Options{Mux: mux.Options{API: opts, Proxies: opts.Proxies}, Store: storeOpts, Start: start})}
}
