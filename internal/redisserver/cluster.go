package redisserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Cluster is a local Redis Cluster, for tests and benchmarks of cluster
// behaviour.
type Cluster struct {
	Nodes []*Server
}

// ClusterOptions describe a local cluster.
type ClusterOptions struct {
	Dir      string // the nodes' data directories go here
	Masters  int
	Replicas int // per master
	// Spares are replicas beyond Replicas per master, each given to one
	// master: with replica migration (on by default in Redis), a spare
	// moves to a master left without replicas, such as a replica promoted
	// when its master died.
	Spares int
	// NodeTimeout is the cluster-node-timeout: how long a master may be
	// unreachable before its replica takes over (2s when zero).
	NodeTimeout time.Duration
	// MinReplicasToWrite is every node's min-replicas-to-write: a master
	// with fewer replicas in sync refuses writes (NOREPLICAS). Zero turns
	// the check off, as Redis does by default.
	MinReplicasToWrite int
}

// Recommended returns the topology docs/OPERATIONS.md recommends, in
// dir: 3 masters with two replicas each and min-replicas-to-write 1, so
// that a master acknowledges no write it alone holds, and still has a
// replica after a failover: when a master fails, one replica takes over
// and the other follows it by itself (with one replica a master, a
// promoted replica would refuse every write until someone gave it one).
func Recommended(dir string, nodeTimeout time.Duration) ClusterOptions {
	return ClusterOptions{Dir: dir, Masters: 3, Replicas: 2, NodeTimeout: nodeTimeout, MinReplicasToWrite: 1}
}

// nodeArgs are the directives of every node of the cluster o describes.
func (o ClusterOptions) nodeArgs() []string {
	return []string{
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", strconv.FormatInt(o.NodeTimeout.Milliseconds(), 10),
		"--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0",
		// The other masters keep serving while a failed one's slots
		// wait for its replica (the default stops the whole cluster).
		"--cluster-require-full-coverage", "no",
		// Replicas show their offset soon (clients list a replica
		// only once it has replicated something).
		"--repl-ping-replica-period", "1",
		"--min-replicas-to-write", strconv.Itoa(o.MinReplicasToWrite),
	}
}

// StartCluster starts masters redis-server processes in cluster mode under
// dir, joins them with `redis-cli --cluster create` and waits until every
// node reports cluster_state:ok.
func StartCluster(ctx context.Context, dir string, masters int) (*Cluster, error) {
	return StartClusterWith(ctx, ClusterOptions{Dir: dir, Masters: masters})
}

// createWait bounds `redis-cli --cluster create`, which waits for the
// nodes to agree with no end of its own: a cluster whose nodes do not
// come together fails, with what each node knows, instead of holding its
// test up until the test binary's timeout.
const createWait = time.Minute

// clusterAttempts is how many clusters StartClusterWith starts, each on
// new nodes, before it gives up on one whose nodes do not come together.
const clusterAttempts = 3

// StartClusterWith starts the cluster o describes, and waits until every
// node reports cluster_state:ok and every replica is in sync. Replicas
// take over at any replication lag (cluster-replica-validity-factor 0).
func StartClusterWith(ctx context.Context, o ClusterOptions) (*Cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redisserver: redis-cli is not installed (on Debian it comes with redis-server)")
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = 2 * time.Second
	}
	for attempt := 1; ; attempt++ {
		dir := o.Dir
		if attempt > 1 {
			dir = filepath.Join(o.Dir, "attempt"+strconv.Itoa(attempt))
		}
		c, err := startClusterNodes(ctx, dir, o)
		if err != nil {
			return nil, err
		}
		err = c.join(ctx, cli, o.Replicas)
		if err == nil {
			return c, nil
		}
		c.Stop()
		if attempt == clusterAttempts || ctx.Err() != nil {
			return nil, err
		}
	}
}

// startClusterNodes starts the nodes of the cluster o describes, not yet
// joined, in directories under dir.
func startClusterNodes(ctx context.Context, dir string, o ClusterOptions) (*Cluster, error) {
	c := &Cluster{}
	for i := range o.Masters*(1+o.Replicas) + o.Spares {
		s, err := startClusterNode(ctx, filepath.Join(dir, "node"+strconv.Itoa(i)), o.nodeArgs())
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	return c, nil
}

// join makes c's nodes one cluster with replicas per master, and waits
// until it is ready.
func (c *Cluster) join(ctx context.Context, cli string, replicas int) error {
	args := append([]string{"--cluster", "create"}, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	createCtx, cancel := context.WithTimeout(ctx, createWait)
	defer cancel()
	if out, err := exec.CommandContext(createCtx, cli, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("redisserver: redis-cli --cluster create: %v: %s\nwhat the nodes know:%s", err, out, c.views(ctx))
	}
	return c.WaitOK(ctx)
}

// views returns what each node says of the cluster (CLUSTER NODES), to
// tell why its nodes did not come together.
func (c *Cluster) views(ctx context.Context) string {
	var b strings.Builder
	for _, s := range c.Nodes {
		nodes, err := s.Command(ctx, "CLUSTER", "NODES")
		fmt.Fprintf(&b, "\n%s: %v\n%s", s.Addr(), err, nodes)
	}
	return b.String()
}

// startClusterNode starts one node on a free port. The cluster bus uses
// port+10000, which must be free too; a port taken between probing and
// binding makes the start fail, so it is retried on another port.
func startClusterNode(ctx context.Context, dir string, args []string) (*Server, error) {
	var lastErr error
	for range 5 {
		port, err := freeClusterPort()
		if err != nil {
			return nil, err
		}
		s, err := Start(ctx, Options{Dir: dir, Port: port, Args: args})
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

// WaitOK waits until every running node reports the cluster ok, every
// replica is in sync with its master, and every node knows every
// replica. A node that was killed (and not restarted) is left out.
func (c *Cluster) WaitOK(ctx context.Context) error {
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
	replicas := 0
	live := c.running()
	for _, s := range live {
		info, err := s.Command(ctx, "CLUSTER", "INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok") {
			return false
		}
		repl, err := s.Command(ctx, "INFO", "replication")
		if err != nil || (strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up")) {
			return false
		}
		if strings.Contains(repl, "role:slave") {
			replicas++
		}
	}
	// Every node knows every replica (gossip has converged), so that a
	// client reading the topology from any node finds them all.
	for _, s := range live {
		nodes, err := s.Command(ctx, "CLUSTER", "NODES")
		if err != nil || strings.Count(nodes, " slave ")+strings.Count(nodes, ",slave ") != replicas {
			return false
		}
	}
	return true
}

// running returns the nodes whose process has not exited.
func (c *Cluster) running() []*Server {
	var out []*Server
	for _, s := range c.Nodes {
		select {
		case <-s.Done():
		default:
			out = append(out, s)
		}
	}
	return out
}

// Masters returns the nodes that are masters now (a failover changes
// them), asking every node but those in skip (dead or paused ones, which
// would not answer).
func (c *Cluster) Masters(ctx context.Context, skip ...*Server) []*Server {
	var out []*Server
	for _, s := range c.Nodes {
		if slices.Contains(skip, s) {
			continue
		}
		if info, err := s.Command(ctx, "INFO", "replication"); err == nil && strings.Contains(info, "role:master") {
			out = append(out, s)
		}
	}
	return out
}

// WaitFailover waits until the cluster serves every slot again without
// the nodes in skip (dead or paused): as many masters among the others
// as masters, and every one of the others reporting cluster_state:ok.
func (c *Cluster) WaitFailover(ctx context.Context, masters int, skip ...*Server) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		ok := len(c.Masters(ctx, skip...)) == masters
		for _, s := range c.Nodes {
			if !ok || slices.Contains(skip, s) {
				continue
			}
			info, err := s.Command(ctx, "CLUSTER", "INFO")
			ok = err == nil && strings.Contains(info, "cluster_state:ok")
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redisserver: cluster not ok again: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Restart starts node s again after it died, on its address and with
// its cluster identity (nodes.conf), as a supervisor would: a master
// that was failed over rejoins as a replica of its successor. It waits
// until every node is ok again, replicas in sync, and returns the new
// process, which takes s's place among c.Nodes.
func (c *Cluster) Restart(ctx context.Context, s *Server) (*Server, error) {
	next, err := Start(ctx, s.Options())
	if err != nil {
		return nil, err
	}
	for i, n := range c.Nodes {
		if n == s {
			c.Nodes[i] = next
		}
	}
	return next, c.WaitOK(ctx)
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

// WaitWritable waits until master s accepts a write to one of its slots
// (a master short of replicas refuses it with NOREPLICAS), writing and
// removing a key of its own, "redisserver-probe{n}", in one of them.
func (c *Cluster) WaitWritable(ctx context.Context, s *Server) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	key, err := ownKey(ctx, s)
	for err == nil {
		if _, err = s.Command(ctx, "SET", key, "1"); err == nil {
			_, err = s.Command(ctx, "DEL", key)
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redisserver: %s refuses writes: %v", s.Addr(), err)
		case <-time.After(20 * time.Millisecond):
			err = nil
		}
	}
	return fmt.Errorf("redisserver: a key of %s: %w", s.Addr(), err)
}

// ownKey returns a key in one of the slots master s serves.
func ownKey(ctx context.Context, s *Server) (string, error) {
	nodes, err := s.Command(ctx, "CLUSTER", "NODES")
	if err != nil {
		return "", err
	}
	for n := range 1000 {
		key := "redisserver-probe{" + strconv.Itoa(n) + "}"
		reply, err := s.Command(ctx, "CLUSTER", "KEYSLOT", key)
		if err != nil {
			return "", err
		}
		slot, err := strconv.Atoi(reply)
		if err != nil {
			return "", fmt.Errorf("CLUSTER KEYSLOT: %q", reply)
		}
		if servesSlot(nodes, slot) {
			return key, nil
		}
	}
	return "", errors.New("no key of 1000 falls in its slots")
}

// servesSlot tells whether the node whose CLUSTER NODES reply is nodes
// ("myself") serves slot.
func servesSlot(nodes string, slot int) bool {
	for line := range strings.SplitSeq(nodes, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 9 || !strings.Contains(fields[2], "myself") {
			continue
		}
		for _, r := range fields[8:] {
			lo, hi, _ := strings.Cut(r, "-")
			if hi == "" {
				hi = lo
			}
			from, err1 := strconv.Atoi(lo)
			to, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && from <= slot && slot <= to {
				return true
			}
		}
	}
	return false
}
