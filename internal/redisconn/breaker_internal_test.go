package redisconn

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisserver"
)

// TestBreakerFreeze freezes one master of a local cluster (SIGSTOP) and
// checks that, once calls to it have been timing out for CircuitTrip (the
// test's clock moves on), calls bound for it fail
// at once, alone or in a pipeline, while calls to the other masters go
// on; and that after the master is back, and the open period over, a
// call tries it again and its circuit closes. The breakers' clock is the
// test's, so that no call tries the frozen master again before the test
// says.
func TestBreakerFreeze(t *testing.T) {
	t.Parallel()
	if os.Getenv("RETWIS_TEST_CLUSTER") != "" {
		t.Skip("freezes a node of a cluster of its own")
	}
	dir, err := os.MkdirTemp("", "rtwb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cluster, err := redisserver.StartCluster(t.Context(), dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range cluster.Nodes {
			n.Resume()
		}
		cluster.Stop()
	})
	raw, err := Dial("redis://" + cluster.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Second // of a command; a sound node answers well within it
	breakers := NewBreakers(NewNodes(raw), time.Minute)
	clock := &testClock{}
	clock.now.Store(time.Now().UnixNano())
	breakers.now = clock.Now
	c := Bounded(raw, timeout, timeout, nil, breakers)
	defer c.Close()
	if err := breakers.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}

	frozenKey, soundKey := keysApart(t, c, breakers)
	frozen := routeOf(c, breakers, frozenKey)
	for _, n := range cluster.Nodes {
		if n.Addr() == frozen {
			if err := n.Pause(); err != nil {
				t.Fatal(err)
			}
			defer n.Resume()
		}
	}
	// The calls a frozen master holds time out together; the circuit
	// opens once they have been timing out for CircuitTrip.
	timeouts := func() {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				res := c.Do(t.Context(), c.B().Get().Key(frozenKey).Build())
				if err := res.Error(); outcomeOf(t.Context(), res) != timedOut {
					t.Errorf("a call to the frozen master: %v; want a timeout", err)
				}
			})
		}
		wg.Wait()
	}
	timeouts()
	if state := circuitStates(t, breakers)[frozen]; state != circuitClosed {
		t.Fatalf("the frozen master's circuit is in state %v after its first timeouts; want still closed", state)
	}
	clock.now.Add(int64(CircuitTrip))
	timeouts()
	if state := circuitStates(t, breakers)[frozen]; state != circuitOpen {
		t.Fatalf("the frozen master's circuit is in state %v; want open", state)
	}

	start := time.Now()
	failed := c.Do(t.Context(), c.B().Get().Key(frozenKey).Build()).Error()
	res := c.DoMulti(t.Context(), c.B().Set().Key(soundKey).Value("v").Build(), c.B().Get().Key(frozenKey).Build())
	sound := c.Do(t.Context(), c.B().Get().Key(soundKey).Build()).Error()
	if !errors.Is(failed, ErrCircuitOpen) || !errors.Is(res[1].Error(), ErrCircuitOpen) || time.Since(start) >= timeout {
		t.Errorf("calls to the frozen master: %v, in a pipeline %v, after %v; want at once, the circuit open",
			failed, res[1].Error(), time.Since(start))
	}
	if IsReply(failed) || !IsOutage(failed) {
		t.Errorf("a call refused by an open circuit: %v; want an outage, as an unreachable node", failed)
	}
	if res[0].Error() != nil || sound != nil {
		t.Errorf("calls to a sound master: in a pipeline %v, alone %v; want answers", res[0].Error(), sound)
	}

	for _, n := range cluster.Nodes {
		if n.Addr() == frozen {
			n.Resume()
		}
	}
	clock.now.Add(int64(time.Minute)) // the open period is over
	if err := c.Do(t.Context(), c.B().Get().Key(frozenKey).Build()).Error(); !rueidis.IsRedisNil(err) {
		t.Fatalf("a call to the master once back: %v; want an answer (nil)", err)
	}
	if state := circuitStates(t, breakers)[frozen]; state != circuitClosed {
		t.Fatalf("the master's circuit is in state %v once it answered; want closed", state)
	}
}

// testClock is a clock the test moves.
type testClock struct{ now atomic.Int64 }

// Now returns the clock's time.
func (c *testClock) Now() time.Time { return time.Unix(0, c.now.Load()) }

// keysApart returns two keys that different masters serve.
func keysApart(t *testing.T, c rueidis.Client, b *Breakers) (string, string) {
	t.Helper()
	first := routeOf(c, b, "k0")
	for i := 1; i < 100; i++ {
		k := "k" + strconv.Itoa(i)
		if addr := routeOf(c, b, k); addr != "" && addr != first {
			return "k0", k
		}
	}
	t.Fatalf("no two keys of 100 on two masters (k0 on %q)", first)
	return "", ""
}

// routeOf returns the master the breakers route key to.
func routeOf(c rueidis.Client, b *Breakers, key string) string {
	cmd := c.B().Get().Key(key).Build()
	return b.route(cmd.Slot())
}

// circuitStates returns the state of each master's circuit, as the
// breakers' gauge says.
func circuitStates(t *testing.T, b *Breakers) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(b)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			out[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
		}
	}
	return out
}
