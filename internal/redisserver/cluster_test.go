package redisserver_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/redisserver"
)

// TestReplicaMigration kills masters with min-replicas-to-write 1 until
// one is promoted with no replica left in its shard: it accepts writes
// again, without anyone's help, once a replica of a master that has two
// migrates to it (Redis waits 5 s before it moves a replica; until then
// the new master has none and refuses writes). Two topologies: 3
// masters with a replica each and a spare, whose first failure the spare
// covers; and the recommended one, two replicas a master, whose second
// failure of a shard a replica of another master covers.
func TestReplicaMigration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  redisserver.ClusterOptions
		kills int // of the shard's master in turn
	}{
		{"a spare", redisserver.ClusterOptions{Masters: 3, Replicas: 1, Spares: 1, MinReplicasToWrite: 1}, 1},
		{"a shard's second failure", redisserver.Recommended("", 0), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Dir, tc.opts.NodeTimeout = t.TempDir(), 500*time.Millisecond
			c, err := redisserver.StartClusterWith(t.Context(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Stop()
			victim := fewestReplicas(t.Context(), c)
			var dead []*redisserver.Server
			for range tc.kills {
				before := c.Masters(t.Context(), dead...)
				start := time.Now()
				victim.Kill()
				dead = append(dead, victim)
				if err := c.WaitFailover(t.Context(), 3, dead...); err != nil {
					t.Fatal(err)
				}
				promoted := time.Since(start)
				after := c.Masters(t.Context(), dead...)
				victim = after[slices.IndexFunc(after, func(m *redisserver.Server) bool { return !slices.Contains(before, m) })]
				if err := c.WaitWritable(t.Context(), victim); err != nil {
					t.Fatal(err)
				}
				t.Logf("the replica took over after %v and accepted writes after %v", promoted, time.Since(start))
			}
		})
	}
}

// fewestReplicas returns a master of c with the fewest replicas.
func fewestReplicas(ctx context.Context, c *redisserver.Cluster) *redisserver.Server {
	masters := c.Masters(ctx)
	count := func(m *redisserver.Server) int {
		info, _ := m.Command(ctx, "INFO", "replication")
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "connected_slaves:"); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		return 0
	}
	return slices.MinFunc(masters, func(a, b *redisserver.Server) int { return count(a) - count(b) })
}
