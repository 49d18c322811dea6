package redisconn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// Nodes finds and probes the nodes of the database a client reaches.
type Nodes struct {
	c rueidis.Client
	// standalone is set once Redis is known to be a single server, not a
	// cluster, so that it need not be asked again.
	standalone atomic.Bool
}

// NewNodes returns a Nodes for the database client reaches.
func NewNodes(client rueidis.Client) *Nodes { return &Nodes{c: client} }

// NodeState is what a probe learns of one Redis node.
type NodeState struct {
	Addr    string
	Err     error // the node did not answer
	Master  bool
	Cluster string // cluster_state, for a cluster node
	Used    int64  // used_memory
	Limit   int64  // maxmemory; 0 for none
	Evicts  bool   // maxmemory-policy evicts keys, so Redis never refuses writes for memory
	// MinReplicas is the master's min-replicas-to-write (0: none, or its
	// CONFIG cannot be read), GoodReplicas how many of its replicas are
	// connected and recent enough to count for it.
	MinReplicas, GoodReplicas int
	// RTT is how long the probe's round trip took.
	RTT time.Duration
	// Errors counts the error replies the node has sent since it started,
	// by prefix (MOVED, ASK, TRYAGAIN, CLUSTERDOWN, OOM…): INFO errorstats.
	Errors map[string]int64
}

// Masters returns the masters of the database: on a cluster, those of
// the cluster's own view (CLUSTER NODES, asked of the first node that
// answers), which leaves out seed addresses that are not, or no longer,
// part of it; on a single server, that server. A master the client has
// no connection to maps to nil.
func (n *Nodes) Masters(ctx context.Context) map[string]rueidis.Client {
	known := n.c.Nodes()
	if n.standalone.Load() {
		return known
	}
	addrs := make([]string, 0, len(known))
	for addr := range known {
		addrs = append(addrs, addr)
	}
	sort.Strings(addrs)
	for _, addr := range addrs {
		node := known[addr]
		v, err := node.Do(ctx, node.B().ClusterNodes().Build()).ToString()
		if err != nil && strings.Contains(err.Error(), "cluster support disabled") {
			n.standalone.Store(true) // a single server (and perhaps its replicas)
			return known
		}
		if err != nil {
			continue
		}
		out := map[string]rueidis.Client{}
		for _, m := range clusterMasters(v) {
			out[m.addr] = known[m.addr]
		}
		return out
	}
	return known // nobody answers: report them all
}

// clusterMaster is a master as CLUSTER NODES lists it: its address and
// the ranges of slots it serves.
type clusterMaster struct {
	addr  string
	slots []SlotRange
}

// clusterMasters reads the masters of a reply of CLUSTER NODES: those
// that serve slots, failed or not yet; one the cluster has given up on
// (flag "fail") lost its slots to its replica.
func clusterMasters(reply string) []clusterMaster {
	var out []clusterMaster
	for line := range strings.SplitSeq(strings.TrimSpace(reply), "\n") {
		// id addr flags master ping pong epoch link slots…
		f := strings.Fields(line)
		if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "noaddr") {
			continue
		}
		m := clusterMaster{}
		m.addr, _, _ = strings.Cut(f[1], "@")
		for _, r := range f[8:] { // "0-5460" or "5461"; "[…]" is a slot in migration
			first, last, isRange := strings.Cut(r, "-")
			if !isRange {
				last = first
			}
			lo, err1 := strconv.ParseUint(first, 10, 16)
			hi, err2 := strconv.ParseUint(last, 10, 16)
			if err1 == nil && err2 == nil {
				m.slots = append(m.slots, SlotRange{First: uint16(lo), Last: uint16(hi), Addr: m.addr})
			}
		}
		out = append(out, m)
	}
	return out
}

// SlotCount is the number of hash slots of a Redis Cluster.
const SlotCount = 16384

// SlotRange is a range of hash slots, First to Last included, and the
// master that serves them.
type SlotRange struct {
	First, Last uint16
	Addr        string
}

// Slots returns which master serves each hash slot, in ranges sorted by
// slot: the cluster's own view (CLUSTER NODES), asked of every node at
// once and taken from the first that answers; for a single server, every
// slot is its.
func (n *Nodes) Slots(ctx context.Context) ([]SlotRange, error) {
	known := n.c.Nodes()
	if len(known) == 0 {
		return nil, ErrNotConnected
	}
	if n.c.Mode() != rueidis.ClientModeCluster {
		for addr := range known {
			return []SlotRange{{First: 0, Last: SlotCount - 1, Addr: addr}}, nil
		}
	}
	// Each node is asked for NodeTimeout at most, whatever becomes of
	// ctx: calls cancelled in flight were seen to fail other calls of the
	// client, which share their connections and topology refreshes, with
	// "context canceled". Once one answers, the others are left to.
	replies := make(chan rueidis.RedisResult, len(known))
	for _, node := range known {
		go func() {
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), NodeTimeout)
			defer cancel()
			replies <- node.Do(nctx, node.B().ClusterNodes().Build())
		}()
	}
	var err error
	for range known {
		var reply rueidis.RedisResult
		select {
		case reply = <-replies:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		var v string
		if v, err = reply.ToString(); err == nil {
			var out []SlotRange
			for _, m := range clusterMasters(v) {
				out = append(out, m.slots...)
			}
			sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
			return out, nil
		}
	}
	return nil, fmt.Errorf("redisconn: no node says which serves each slot: %w", err)
}

// Probe asks every master about itself, concurrently, and returns what
// they said ordered by address.
func (n *Nodes) Probe(ctx context.Context) []NodeState {
	var mu sync.Mutex
	var out []NodeState
	var wg sync.WaitGroup
	for addr, node := range n.Masters(ctx) {
		wg.Go(func() {
			st := NodeState{Addr: addr, Err: ErrNotConnected}
			if node != nil {
				st = probeNode(ctx, addr, node)
			}
			mu.Lock()
			out = append(out, st)
			mu.Unlock()
		})
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// Writable reports whether a master that answered accepts writes: it is
// not at its memory limit (without eviction) and has the replicas its
// min-replicas-to-write asks for. Otherwise it refuses them (OOM,
// NOREPLICAS) while still serving reads.
func (st NodeState) Writable() bool {
	return st.Err == nil && !st.Full() && st.GoodReplicas >= st.MinReplicas
}

// Full reports whether a master is at its memory limit without eviction:
// it refuses writes.
func (st NodeState) Full() bool { return st.Limit > 0 && !st.Evicts && st.Used >= st.Limit }

// ErrNotConnected reports a master the client has no connection to.
var ErrNotConnected = errors.New("not connected")

// probeNode reads a node's role, memory and cluster state in one round
// trip.
func probeNode(ctx context.Context, addr string, node rueidis.Client) NodeState {
	st := NodeState{Addr: addr}
	start := time.Now()
	res := node.DoMulti(ctx,
		node.B().Info().Section("replication").Build(),
		node.B().Info().Section("memory").Build(),
		node.B().Info().Section("cluster").Build(),
		node.B().Info().Section("errorstats").Build(),
	)
	st.RTT = time.Since(start)
	var info strings.Builder
	for _, r := range res {
		v, err := r.ToString()
		if err != nil {
			st.Err = err
			return st
		}
		info.WriteString(v)
	}
	field := func(name string) string {
		for line := range strings.SplitSeq(info.String(), "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return v
			}
		}
		return ""
	}
	st.Master = field("role") == "master"
	st.Used, _ = strconv.ParseInt(field("used_memory"), 10, 64)
	st.Limit, _ = strconv.ParseInt(field("maxmemory"), 10, 64)
	st.Evicts = !strings.HasPrefix(field("maxmemory_policy"), "noeviction")
	st.Errors = errorStats(info.String())
	st.GoodReplicas, _ = strconv.Atoi(field("min_slaves_good_slaves"))
	if st.Master && field("min_slaves_good_slaves") != "" { // min-replicas-to-write is set
		st.MinReplicas = minReplicas(ctx, node)
	}
	if field("cluster_enabled") == "1" {
		if v, err := node.Do(ctx, node.B().ClusterInfo().Build()).ToString(); err == nil {
			for line := range strings.SplitSeq(v, "\r\n") {
				if state, ok := strings.CutPrefix(line, "cluster_state:"); ok {
					st.Cluster = state
				}
			}
		}
	}
	return st
}

// minReplicas returns a node's min-replicas-to-write, or 0 if its
// configuration cannot be read (CONFIG renamed away).
func minReplicas(ctx context.Context, node rueidis.Client) int {
	kv, err := node.Do(ctx, node.B().ConfigGet().Parameter("min-replicas-to-write").Build()).AsStrMap()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(kv["min-replicas-to-write"])
	return n
}

// errorStats reads the errorstat_<PREFIX>:count=<n> lines of INFO.
func errorStats(info string) map[string]int64 {
	out := map[string]int64{}
	for line := range strings.SplitSeq(info, "\r\n") {
		rest, ok := strings.CutPrefix(line, "errorstat_")
		if !ok {
			continue
		}
		prefix, count, ok := strings.Cut(rest, ":count=")
		if n, err := strconv.ParseInt(count, 10, 64); ok && err == nil {
			out[prefix] = n
		}
	}
	return out
}

// Ping checks that every master answers a PING, all at once. It returns
// the error of a master that does not, naming it.
func (n *Nodes) Ping(ctx context.Context) error {
	var mu sync.Mutex
	var failed error
	var wg sync.WaitGroup
	for addr, node := range n.Masters(ctx) {
		wg.Go(func() {
			err := ErrNotConnected
			if node != nil {
				err = node.Do(ctx, node.B().Ping().Build()).Error()
			}
			if err != nil {
				mu.Lock()
				failed = fmt.Errorf("master %s: %w", addr, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// FewestReplicas returns the smallest number of replicas connected to any
// master that client reaches: how many replicas every write can wait for
// (store.Options.WaitReplicas).
func FewestReplicas(ctx context.Context, client rueidis.Client) (int, error) {
	fewest := -1
	for addr, node := range client.Nodes() {
		info, err := node.Do(ctx, node.B().Info().Section("replication").Build()).ToString()
		if err != nil {
			return 0, fmt.Errorf("redisconn: replication info of %s: %w", addr, err)
		}
		if !strings.Contains(info, "role:master") {
			continue
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "connected_slaves:"); ok {
				n, _ := strconv.Atoi(v)
				if fewest < 0 || n < fewest {
					fewest = n
				}
			}
		}
	}
	return max(fewest, 0), nil
}
