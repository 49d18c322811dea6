package redisserver_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/redisserver"
)

// TestReplicaMigration starts 3 masters with a replica each and a spare,
// all with min-replicas-to-write 1, and kills a master with one replica:
// its replica takes over and, without anyone's help, accepts writes once
// the spare has migrated to it (Redis waits 5 s before it moves a
// replica; until then the successor has none and refuses writes).
func TestReplicaMigration(t *testing.T) {
	t.Parallel()
	c, err := redisserver.StartClusterWith(t.Context(), redisserver.ClusterOptions{Dir: t.TempDir(),
		Masters: 3, Replicas: 1, Spares: 1, NodeTimeout: 500 * time.Millisecond, MinReplicasToWrite: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if len(c.Nodes) != 7 {
		t.Fatalf("%d nodes; want 3 masters, 3 replicas and a spare", len(c.Nodes))
	}
	before := c.Masters(t.Context())
	victim := before[slices.IndexFunc(before, func(m *redisserver.Server) bool {
		info, err := m.Command(t.Context(), "INFO", "replication")
		return err == nil && strings.Contains(info, "connected_slaves:1\r\n")
	})]
	start := time.Now()
	victim.Kill()
	if err := c.WaitFailover(t.Context(), 3, victim); err != nil {
		t.Fatal(err)
	}
	promoted := time.Since(start)
	after := c.Masters(t.Context(), victim)
	successor := after[slices.IndexFunc(after, func(m *redisserver.Server) bool { return !slices.Contains(before, m) })]
	if err := c.WaitWritable(t.Context(), successor); err != nil {
		t.Fatal(err)
	}
	t.Logf("the replica took over after %v and accepted writes after %v", promoted, time.Since(start))
}
