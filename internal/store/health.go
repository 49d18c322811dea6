package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/rueidis"
)

// nodeState is what a health check learns of one Redis node.
type nodeState struct {
	addr    string
	err     error // the node did not answer
	master  bool
	cluster string // cluster_state, for a cluster node
	used    int64  // used_memory
	limit   int64  // maxmemory; 0 for none
	evicts  bool   // maxmemory-policy evicts keys, so Redis never refuses writes for memory
}

// masters returns the masters of the database: on a cluster, those of
// the cluster's own view (CLUSTER NODES, asked of the first node that
// answers), which leaves out seed addresses that are not, or no longer,
// part of it; on a single server, that server. A master the client has
// no connection to maps to nil.
func (s *Store) masters(ctx context.Context) map[string]rueidis.Client {
	known := s.c.Nodes()
	if s.standalone.Load() {
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
			s.standalone.Store(true) // a single server (and perhaps its replicas)
			return known
		}
		if err != nil {
			continue
		}
		out := map[string]rueidis.Client{}
		for line := range strings.SplitSeq(strings.TrimSpace(v), "\n") {
			// id addr flags master ping pong epoch link slots…: a master
			// that serves slots, failed or not yet; one the cluster has
			// given up on (flag "fail") lost its slots to its replica.
			f := strings.Fields(line)
			if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "noaddr") {
				continue
			}
			master, _, _ := strings.Cut(f[1], "@")
			out[master] = known[master]
		}
		return out
	}
	return known // nobody answers: report them all
}

// nodes asks every master about itself, concurrently.
func (s *Store) nodes(ctx context.Context) []nodeState {
	var mu sync.Mutex
	var out []nodeState
	var wg sync.WaitGroup
	for addr, node := range s.masters(ctx) {
		wg.Go(func() {
			st := nodeState{addr: addr, err: errNotConnected}
			if node != nil {
				st = probeNode(ctx, addr, node)
			}
			mu.Lock()
			out = append(out, st)
			mu.Unlock()
		})
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// errNotConnected reports a master the client has no connection to.
var errNotConnected = errors.New("not connected")

// probeNode reads a node's role, memory and cluster state in one round
// trip.
func probeNode(ctx context.Context, addr string, node rueidis.Client) nodeState {
	st := nodeState{addr: addr}
	res := node.DoMulti(ctx,
		node.B().Info().Section("replication").Build(),
		node.B().Info().Section("memory").Build(),
		node.B().Info().Section("cluster").Build(),
	)
	var info strings.Builder
	for _, r := range res {
		v, err := r.ToString()
		if err != nil {
			st.err = err
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
	st.master = field("role") == "master"
	st.used, _ = strconv.ParseInt(field("used_memory"), 10, 64)
	st.limit, _ = strconv.ParseInt(field("maxmemory"), 10, 64)
	st.evicts = !strings.HasPrefix(field("maxmemory_policy"), "noeviction")
	if field("cluster_enabled") == "1" {
		if v, err := node.Do(ctx, node.B().ClusterInfo().Build()).ToString(); err == nil {
			for line := range strings.SplitSeq(v, "\r\n") {
				if state, ok := strings.CutPrefix(line, "cluster_state:"); ok {
					st.cluster = state
				}
			}
		}
	}
	return st
}

// Health checks that every Redis master answers a PING, all at once:
// the database can serve. It returns an Unavailable error naming a
// master that does not.
func (s *Store) Health(ctx context.Context) error {
	var mu sync.Mutex
	var failed error
	var wg sync.WaitGroup
	for addr, node := range s.masters(ctx) {
		wg.Go(func() {
			err := errNotConnected
			if node != nil {
				err = node.Do(ctx, node.B().Ping().Build()).Error()
			}
			if err != nil {
				mu.Lock()
				failed = s.wrap("health of "+addr, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// Readiness returns why the database should not receive traffic, or
// nothing when it should: a node that does not answer, a cluster whose
// state is not ok, a master at its memory limit (writes would fail), or
// a database that has lost retwis's data (its layout version is gone,
// as after a restart without persistence: every session would be dead).
func (s *Store) Readiness(ctx context.Context) []string {
	var problems []string
	for _, n := range s.nodes(ctx) {
		switch {
		case n.err != nil:
			problems = append(problems, fmt.Sprintf("Redis %s does not answer: %v", n.addr, n.err))
		case n.cluster != "" && n.cluster != "ok":
			problems = append(problems, fmt.Sprintf("Redis %s: cluster state %s", n.addr, n.cluster))
		case n.master && n.limit > 0 && !n.evicts && n.used >= n.limit:
			problems = append(problems, fmt.Sprintf("Redis %s is full: %d of %d bytes used, writes fail", n.addr, n.used, n.limit))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	n, err := s.c.Do(ctx, s.c.B().Exists().Key(keySchema).Build()).AsInt64()
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("reading the layout version: %v", err))
	case n == 0:
		s.log.Error("the database has lost retwis's data (no layout version): was Redis restarted without persistence?")
		problems = append(problems, "the database is empty: its layout version is gone (a restart without persistence?)")
	}
	return problems
}
