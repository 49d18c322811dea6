package redisconn

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports, at each scrape, what a probe of every master says:
// whether it answers, its round-trip time, its memory, and the error
// replies it has sent by prefix, among them the cluster's redirections
// and refusals (MOVED, ASK, TRYAGAIN, CLUSTERDOWN) that the client
// library follows without telling. A scrape waits at most a second.
type Collector struct {
	nodes              *Nodes
	up, rtt, used, max *prometheus.Desc
	writable           *prometheus.Desc
	errors             *prometheus.Desc
}

// NewCollector returns a Collector probing the masters nodes finds.
func NewCollector(nodes *Nodes) *Collector {
	node := []string{"node"}
	return &Collector{
		nodes: nodes,
		up:    prometheus.NewDesc("retwis_redis_node_up", "Whether the Redis master answers (1) or not (0).", node, nil),
		rtt: prometheus.NewDesc("retwis_redis_node_rtt_seconds",
			"Round-trip time of a probe of the Redis master, at the scrape.", node, nil),
		used: prometheus.NewDesc("retwis_redis_node_memory_used_bytes", "Memory the Redis master uses (used_memory).", node, nil),
		max:  prometheus.NewDesc("retwis_redis_node_memory_max_bytes", "The Redis master's maxmemory; 0 for none.", node, nil),
		writable: prometheus.NewDesc("retwis_redis_node_writable",
			"Whether the Redis master accepts writes (1) or refuses them (0): it does not answer, is full, "+
				"or lacks the replicas its min-replicas-to-write asks for.", node, nil),
		errors: prometheus.NewDesc("retwis_redis_node_error_replies_total",
			"Error replies the Redis master has sent since it started (to any client), by prefix: "+
				"MOVED and ASK are redirections, TRYAGAIN and CLUSTERDOWN refusals during resharding or failover.",
			[]string{"node", "error"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.rtt, c.used, c.max, c.writable, c.errors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, n := range c.nodes.Probe(ctx) {
		ch <- prometheus.MustNewConstMetric(c.writable, prometheus.GaugeValue, gauge(n.Writable()), n.Addr)
		if n.Err != nil {
			ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0, n.Addr)
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1, n.Addr)
		ch <- prometheus.MustNewConstMetric(c.rtt, prometheus.GaugeValue, n.RTT.Seconds(), n.Addr)
		ch <- prometheus.MustNewConstMetric(c.used, prometheus.GaugeValue, float64(n.Used), n.Addr)
		ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(n.Limit), n.Addr)
		for prefix, count := range n.Errors {
			ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(count), n.Addr, prefix)
		}
	}
}

// gauge is 1 for true, 0 for false.
func gauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
