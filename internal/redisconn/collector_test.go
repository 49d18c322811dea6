package redisconn_test

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestCollector scrapes the masters of a cluster after a client that
// ignores the cluster's layout got redirected: every master is up, with a
// round-trip time, and the redirections show among its error replies.
func TestCollector(t *testing.T) {
	t.Parallel()
	url := redistest.Cluster(t)
	c, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := strings.TrimPrefix(url, "redis://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	for _, key := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} { // some live on other masters
		if _, err := resp.RoundTrip(conn, r, 0, "GET", key); err != nil {
			if _, reply := errors.AsType[resp.Error](err); !reply { // MOVED is one
				t.Fatal(err)
			}
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(redisconn.NewCollector(redisconn.NewNodes(c)))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	up, rtt, moved := 0, 0, 0.0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetName() {
			case "retwis_redis_node_up":
				if m.GetGauge().GetValue() == 1 {
					up++
				}
			case "retwis_redis_node_rtt_seconds":
				if m.GetGauge().GetValue() > 0 {
					rtt++
				}
			case "retwis_redis_node_error_replies_total":
				if labels["node"] == addr && labels["error"] == "MOVED" {
					moved = m.GetCounter().GetValue()
				}
			}
		}
	}
	if up != 3 || rtt != 3 {
		t.Errorf("%d masters up and %d with a round-trip time; want 3 and 3", up, rtt)
	}
	if moved < 1 {
		t.Errorf("no MOVED reply counted on %s", addr)
	}
}

// TestWritable has a master with one replica ask for one, then for two
// (min-replicas-to-write): it accepts writes, then refuses them, and a
// probe and the writable gauge say so.
func TestWritable(t *testing.T) {
	t.Parallel()
	master, _ := redistest.Replicated(t)
	c, err := redisconn.Dial(master.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nodes := redisconn.NewNodes(c)
	for _, tc := range []struct {
		min      string
		writable bool
	}{{"0", true}, {"1", true}, {"2", false}} {
		redistest.Do(t, c, "CONFIG", "SET", "min-replicas-to-write", tc.min)
		// Redis counts its good replicas anew once a second.
		probe := nodes.Probe(t.Context())
		for deadline := time.Now().Add(5 * time.Second); len(probe) == 1 && probe[0].Writable() != tc.writable &&
			time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			probe = nodes.Probe(t.Context())
		}
		write := c.Do(t.Context(), c.B().Set().Key("k").Value("v").Build()).Error()
		if len(probe) != 1 || probe[0].Writable() != tc.writable || (write == nil) != tc.writable {
			t.Fatalf("min-replicas-to-write %s: probe %+v, a write: %v; want writable %v", tc.min, probe, write, tc.writable)
		}
		reg := prometheus.NewRegistry()
		reg.MustRegister(redisconn.NewCollector(nodes))
		if g := gaugeOf(t, reg, "retwis_redis_node_writable"); g != map[bool]float64{true: 1, false: 0}[tc.writable] {
			t.Fatalf("min-replicas-to-write %s: retwis_redis_node_writable %v", tc.min, g)
		}
	}
}

// gaugeOf returns the value of the one gauge of name that reg gathers.
func gaugeOf(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no single gauge %s", name)
	return 0
}
