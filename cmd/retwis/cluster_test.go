package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestServeOnReplicatedCluster starts a server on a cluster with a dead
// first seed node, then kills a master: /readyz says so until the replica
// has taken over, and the server serves pages again without a restart.
// It reads post hashes and usernames from the replicas (--replica-reads).
// Its id lease is a lock spread over the three masters, held on each of
// them before the failover and on the promoted master after it.
func TestServeOnReplicatedCluster(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t)
	seeds := "redis://127.0.0.1:1," + strings.Join(c.Addrs(), ",")
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: seeds, store: store.Options{ReplicaReads: true}})
	defer stop()
	alice := newUser(t, base)
	alice.signUp("alice")
	alice.post("/post", map[string][]string{"status": {"before the failover"}})
	if status, body := alice.get("/readyz"); status != http.StatusOK {
		t.Fatalf("/readyz with a dead seed outside the cluster: %d %s", status, body)
	}
	client := must.Value(redisconn.Dial("redis://" + strings.Join(c.Addrs(), ",")))(t)
	defer client.Close()
	masters := c.Masters(t.Context())
	for _, m := range masters {
		if keys := leaseKeys(t, client, m); len(keys) != 3 {
			t.Fatalf("master %s holds %v of the id lease's keys; want 3 on each master", m.Addr(), keys)
		}
	}
	victim := masters[0]
	victim.Kill()
	sawDown := false
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, body := alice.get("/readyz")
		if status != http.StatusOK {
			sawDown = true
			if !strings.Contains(body, "does not answer") && !strings.Contains(body, "cluster state") {
				t.Fatalf("/readyz during the failover says: %s", body)
			}
		} else if sawDown {
			break // the replica took over
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never reported the failover, or never recovered (saw it down: %v)", sawDown)
		}
	}
	// Full service within 2s of the replica's promotion.
	for ready := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		status, body := alice.get("/")
		if status == http.StatusOK && strings.Contains(body, "before the failover") {
			break
		}
		if time.Since(ready) > 2*time.Second {
			t.Fatalf("home 2s after the failover: %d", status)
		}
	}
	for _, m := range c.Masters(t.Context(), victim) {
		if keys := leaseKeys(t, client, m); len(keys) != 3 {
			t.Fatalf("after the failover, master %s holds %v of the id lease's keys; want 3 on each master", m.Addr(), keys)
		}
	}
}

// leaseKeys returns the keys of id worker leases (not their fence
// counters) on master m, waiting up to 10 s for there to be 3 of them
// (a promoted master gets its keys back at the lease's next extension).
func leaseKeys(t *testing.T, client rueidis.Client, m *redisserver.Server) []string {
	t.Helper()
	var keys []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		node, ok := client.Nodes()[m.Addr()]
		if !ok {
			continue // the client has yet to learn of the promotion
		}
		keys = keys[:0]
		for _, k := range redistest.Strs(t, node, "KEYS", "*retwis:worker:*") {
			if !strings.HasSuffix(k, ":fence") {
				keys = append(keys, k)
			}
		}
		if len(keys) == 3 {
			break
		}
	}
	return keys
}
