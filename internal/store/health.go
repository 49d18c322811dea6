package store

import (
	"context"
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

// nodes asks every node the client knows about itself, concurrently.
func (s *Store) nodes(ctx context.Context) []nodeState {
	var mu sync.Mutex
	var out []nodeState
	var wg sync.WaitGroup
	for addr, node := range s.c.Nodes() {
		wg.Go(func() {
			st := probeNode(ctx, addr, node)
			mu.Lock()
			out = append(out, st)
			mu.Unlock()
		})
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

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

// Health checks that every Redis node answers a PING, all at once: the
// database can serve. It returns an Unavailable error naming a node that
// does not.
func (s *Store) Health(ctx context.Context) error {
	var mu sync.Mutex
	var failed error
	var wg sync.WaitGroup
	for addr, node := range s.c.Nodes() {
		wg.Go(func() {
			if err := node.Do(ctx, node.B().Ping().Build()).Error(); err != nil {
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
