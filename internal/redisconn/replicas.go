package redisconn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// ReplicaLag is how long ago a replica may have last acknowledged its
// master's stream (replicas acknowledge every second) and still count as
// in sync (Nodes.Replicas): a replica that froze, or whose link is cut
// without the master noticing yet, stops counting after this long.
const ReplicaLag = 3 * time.Second

// Replicas returns how many replicas in sync each master the client is
// connected to has, by their own word (INFO replication): a replica
// counts once it has loaded its master's data (state online) and
// acknowledged some of its stream (offset), and only while it goes on
// acknowledging it (ReplicaLag). All nodes are asked at
// once; the replicas, and the nodes that do not answer, are left out.
func (n *Nodes) Replicas(ctx context.Context) map[string]int {
	var mu sync.Mutex
	out := map[string]int{}
	var wg sync.WaitGroup
	for addr, node := range n.c.Nodes() {
		wg.Go(func() {
			if count, master, err := replicasOf(ctx, node); err == nil && master {
				mu.Lock()
				out[addr] = count
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

// ReplicasOf returns how many replicas in sync (see Replicas) the master
// at addr has; an error if it does not answer, or is no master.
func (n *Nodes) ReplicasOf(ctx context.Context, addr string) (int, error) {
	node := n.c.Nodes()[addr]
	if node == nil {
		return 0, fmt.Errorf("redisconn: %s: %w", addr, ErrNotConnected)
	}
	count, master, err := replicasOf(ctx, node)
	if err == nil && !master {
		err = fmt.Errorf("redisconn: %s is no master", addr)
	}
	return count, err
}

// replicasOf reads a node's replicas in sync, and whether it is a master.
func replicasOf(ctx context.Context, node rueidis.Client) (count int, master bool, err error) {
	info, err := node.Do(ctx, node.B().Info().Section("replication").Build()).ToString()
	if err != nil {
		return 0, false, err
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if line == "role:master" {
			master = true
		}
		// slave0:ip=127.0.0.1,port=7001,state=online,offset=5236,lag=0
		if name, fields, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(name, "slave") && inSync(fields) {
			count++
		}
	}
	return count, master, nil
}

// inSync reports whether the fields of a replica's line of INFO
// replication show it online and lagging no more than ReplicaLag.
func inSync(fields string) bool {
	online, acked, lag := false, false, -1
	for f := range strings.SplitSeq(fields, ",") {
		switch k, v, _ := strings.Cut(f, "="); k {
		case "state":
			online = v == "online"
		case "offset":
			acked = v != "0"
		case "lag":
			lag, _ = strconv.Atoi(v)
		}
	}
	return online && acked && lag >= 0 && time.Duration(lag)*time.Second <= ReplicaLag
}
