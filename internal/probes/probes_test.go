package probes_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/probes"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// TestProbes checks the three probes through the states a database goes
// through: healthy, refusing writes for want of a replica, full, emptied
// by a restart without persistence, and gone; /livez answers throughout.
func TestProbes(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	st := storetest.Open(t, redis.URL, store.Options{Log: log})
	if err := st.Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	probes.New(probes.Options{DB: st.DB, Log: log}).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	expect := func(path string, status int, text string) {
		t.Helper()
		r, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != status || !strings.Contains(string(body), text) || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d %q (%s), want %d and %q", path, r.StatusCode, body, r.Header.Get("Cache-Control"), status, text)
		}
	}
	exec := func(args ...string) { t.Helper(); redistest.Do(t, st.C, args...) }
	expect("/livez", 200, "ok")
	expect("/healthz", 200, "ok")
	expect("/readyz", 200, "ready")

	exec("CONFIG", "SET", "min-replicas-to-write", "1") // and no replica
	expect("/readyz", 503, "refuses writes: 0 of the 1 replicas")
	expect("/healthz", 200, "ok") // reads are served
	exec("CONFIG", "SET", "min-replicas-to-write", "0")
	expect("/readyz", 200, "ready")

	// A limit below what is used (Redis takes it, and with noeviction
	// refuses writes): the memory in use moves from one moment to the
	// next, so a limit equal to it is not reliably reached.
	exec("CONFIG", "SET", "maxmemory-policy", "noeviction")
	exec("CONFIG", "SET", "maxmemory", "1")
	expect("/readyz", 503, "is full")
	expect("/healthz", 200, "ok") // full is not down
	exec("CONFIG", "SET", "maxmemory", "0")

	exec("FLUSHALL")
	expect("/readyz", 503, "the database is empty")
	if !strings.Contains(logs.String(), "lost retwis's data") {
		t.Fatal("a database that lost its data was not logged")
	}

	redis.Stop(t)
	expect("/livez", 200, "ok")
	expect("/healthz", 503, "redis unavailable")
	expect("/readyz", 503, "does not answer")
}
