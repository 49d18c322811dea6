package redisconn_test

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"testing"

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
