package redisserver

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Cluster is a local Redis Cluster of masters without replicas, for tests
// and benchmarks of cluster behaviour.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts masters redis-server processes in cluster mode under
// dir, joins them with `redis-cli --cluster create` and waits until every
// node reports cluster_state:ok.
func StartCluster(ctx context.Context, dir string, masters int) (*Cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redisserver: redis-cli is not installed (on Debian it comes with redis-server)")
	}
	c := &Cluster{}
	for i := range masters {
		s, err := startClusterNode(ctx, filepath.Join(dir, "node"+strconv.Itoa(i)))
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	args := append([]string{"--cluster", "create"}, c.Addrs()...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("redisserver: redis-cli --cluster create: %v: %s", err, out)
	}
	if err := c.waitOK(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// startClusterNode starts one node on a free port. The cluster bus uses
// port+10000, which must be free too; a port taken between probing and
// binding makes the start fail, so it is retried on another port.
func startClusterNode(ctx context.Context, dir string) (*Server, error) {
	var lastErr error
	for range 5 {
		port, err := freeClusterPort()
		if err != nil {
			return nil, err
		}
		s, err := Start(ctx, Options{Dir: dir, Port: port, Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "2000",
		}})
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func freeClusterPort() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("redisserver: find free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000)))
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, fmt.Errorf("redisserver: no free port pair for a cluster node")
}

func (c *Cluster) waitOK(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		if c.allOK(ctx) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redisserver: cluster not ready: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *Cluster) allOK(ctx context.Context) bool {
	for _, s := range c.Nodes {
		info, err := s.Command(ctx, "CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
	}
	return true
}

// Addrs returns the host:port of every node.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Stop stops every node.
func (c *Cluster) Stop() {
	for _, s := range c.Nodes {
		s.Stop()
	}
}
