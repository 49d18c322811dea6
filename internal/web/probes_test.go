package web_test

import (
	"strings"
	"testing"
)

// TestProbes checks the three probes through the states a database goes
// through: healthy, refusing writes for want of a replica, full, emptied
// by a restart without persistence, and gone; /livez answers throughout.
func TestProbes(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	expect(t, b.get("/livez"), 200, "ok")
	expect(t, b.get("/healthz"), 200, "ok")
	expect(t, b.get("/readyz"), 200, "ready")

	s.exec("CONFIG", "SET", "min-replicas-to-write", "1") // and no replica
	expect(t, b.get("/readyz"), 503, "refuses writes: 0 of the 1 replicas")
	expect(t, b.get("/healthz"), 200, "ok") // reads are served
	s.exec("CONFIG", "SET", "min-replicas-to-write", "0")
	expect(t, b.get("/readyz"), 200, "ready")

	// A limit below what is used (Redis takes it, and with noeviction
	// refuses writes): the memory in use moves from one moment to the
	// next, so a limit equal to it is not reliably reached.
	s.exec("CONFIG", "SET", "maxmemory-policy", "noeviction")
	s.exec("CONFIG", "SET", "maxmemory", "1")
	expect(t, b.get("/readyz"), 503, "is full")
	expect(t, b.get("/healthz"), 200, "ok") // full is not down
	s.exec("CONFIG", "SET", "maxmemory", "0")

	s.exec("FLUSHALL")
	expect(t, b.get("/readyz"), 503, "the database is empty")
	if !strings.Contains(s.logs.String(), "lost retwis's data") {
		t.Fatal("a database that lost its data was not logged")
	}

	s.redis.Stop(t)
	expect(t, b.get("/livez"), 200, "ok")
	expect(t, b.get("/healthz"), 503, "redis unavailable")
	expect(t, b.get("/readyz"), 503, "does not answer")
}
