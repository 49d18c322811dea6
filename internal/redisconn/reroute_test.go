package redisconn_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestRerouteAfterFreeze: a master frozen (SIGSTOP) under load until its
// replica takes over, then resumed, becomes a replica of its successor;
// once the cluster is ok again, a write to its former slots, confirmed by
// a WAIT on the same slot, succeeds at once. The client library, left to
// itself, went on sending those slots to the old master for up to a
// second after it was resumed, where the write was redirected and the
// WAIT refused ("WAIT cannot be used with replica instances").
func TestRerouteAfterFreeze(t *testing.T) {
	c := redistest.ReplicatedCluster(t)
	client, err := redisconn.Dial("redis://" + strings.Join(c.Addrs(), ","))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	const key = "reroute"
	if err := client.Do(t.Context(), client.B().Set().Key(key).Value("0").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	before := c.Masters(t.Context())
	victim := masterOf(t, client, c, before, key)
	if err := victim.Pause(); err != nil {
		t.Fatal(err)
	}
	stop := readUntil(client, key) // users' reads, which time out on the frozen master
	if err := c.WaitFailover(t.Context(), len(before), victim); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Masters(t.Context(), victim) {
		if !slices.Contains(before, m) {
			if err := c.WaitWritable(t.Context(), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := victim.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitOK(t.Context()); err != nil {
		t.Fatal(err)
	}
	stop()
	// The client reads the slot map every tenth of a second while calls
	// fail, and starts afresh after two reads that agree: on a loaded
	// machine that may end just after the cluster is ok. Give it half a
	// second (left to itself, the library takes up to a second after its
	// first MOVED, and 5 s without one), then every write must succeed.
	settled := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(settled) && !waited(t, client, key) {
		time.Sleep(20 * time.Millisecond)
	}
	for i := range 20 {
		res := client.DoMulti(t.Context(), client.B().Set().Key(key).Value("1").Build(),
			client.B().Wait().Numreplicas(1).Timeout(1000).Build().SetSlot(key))
		if err := res[0].Error(); err != nil {
			t.Fatalf("write %d after the cluster is ok: %v", i, err)
		}
		if n, err := res[1].AsInt64(); err != nil || n < 1 {
			t.Fatalf("WAIT of write %d after the cluster is ok: %d replicas, %v; want 1", i, n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// masterOf returns the master, among masters, that serves key's slot.
func masterOf(t *testing.T, client rueidis.Client, c *redisserver.Cluster, masters []*redisserver.Server, key string) *redisserver.Server {
	t.Helper()
	ranges, err := redisconn.NewNodes(client).Slots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	get := client.B().Get().Key(key).Build()
	slot := get.Slot()
	for _, r := range ranges {
		if r.First <= slot && slot <= r.Last {
			if i := slices.IndexFunc(masters, func(m *redisserver.Server) bool { return m.Addr() == r.Addr }); i >= 0 {
				return masters[i]
			}
		}
	}
	t.Fatalf("no master serves slot %d of %s", slot, c.Addrs())
	return nil
}

// readUntil reads key every 5ms, each read given 200ms, until the
// returned function is called.
func readUntil(client rueidis.Client, key string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			wg.Go(func() {
				// Not cancelled by stop: a read cancelled in flight may
				// fail others that share its connection.
				rctx, rcancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer rcancel()
				client.Do(rctx, client.B().Get().Key(key).Build())
			})
		}
	})
	return func() { close(done); wg.Wait() }
}

// waited reports whether a write to key is confirmed by a replica (WAIT).
func waited(t *testing.T, client rueidis.Client, key string) bool {
	res := client.DoMulti(t.Context(), client.B().Set().Key(key).Value("1").Build(),
		client.B().Wait().Numreplicas(1).Timeout(1000).Build().SetSlot(key))
	n, err := res[1].AsInt64()
	return res[0].Error() == nil && err == nil && n >= 1
}
