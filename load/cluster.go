package load

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// isCluster asks a server whether it is a node of a Redis Cluster. A
// server that will not say (INFO refused by an ACL) is taken for a single
// one; Options.Cluster overrides.
func isCluster(conn net.Conn, timeout time.Duration) bool {
	v, err := resp.RoundTrip(conn, bufio.NewReader(conn), timeout, "INFO", "cluster")
	info, _ := v.(string)
	return err == nil && strings.Contains(info, "cluster_enabled:1")
}

// slotMap is which master serves each hash slot, from CLUSTER SLOTS: the
// masters' addresses, and for each slot the index of its master.
type slotMap struct {
	addrs []string
	owner []uint16
}

// readSlotMap reads the slot map of the cluster that conn is a node of.
// A master announced without an address ("") is at host, the host the
// load connected to. Every slot must be served: a load into a cluster
// that is not whole would fail halfway.
func readSlotMap(conn net.Conn, host string, timeout time.Duration) (*slotMap, error) {
	v, err := resp.RoundTrip(conn, bufio.NewReader(conn), timeout, "CLUSTER", "SLOTS")
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SLOTS: %w", err)
	}
	ranges, _ := v.([]any)
	m := &slotMap{owner: make([]uint16, resp.Slots)}
	index := map[string]int{}
	served := 0
	for _, r := range ranges {
		lo, hi, addr, err := slotRange(r, host)
		if err != nil {
			return nil, fmt.Errorf("CLUSTER SLOTS: %w", err)
		}
		i, ok := index[addr]
		if !ok {
			i = len(m.addrs)
			index[addr] = i
			m.addrs = append(m.addrs, addr)
		}
		for s := lo; s <= hi; s++ {
			m.owner[s] = uint16(i)
		}
		served += hi - lo + 1
	}
	if served != resp.Slots {
		return nil, fmt.Errorf("the cluster serves %d of the %d hash slots: is it whole (CLUSTER INFO)?", served, resp.Slots)
	}
	return m, nil
}

// slotRange reads one entry of CLUSTER SLOTS: [first, last, [host, port,
// id, …], replicas…].
func slotRange(v any, defaultHost string) (lo, hi int, addr string, err error) {
	e, _ := v.([]any)
	if len(e) < 3 {
		return 0, 0, "", fmt.Errorf("unexpected entry %v", v)
	}
	first, ok1 := e[0].(int64)
	last, ok2 := e[1].(int64)
	master, _ := e[2].([]any)
	if !ok1 || !ok2 || first < 0 || last < first || last >= resp.Slots || len(master) < 2 {
		return 0, 0, "", fmt.Errorf("unexpected entry %v", v)
	}
	host, _ := master[0].(string)
	port, ok := master[1].(int64)
	if !ok || host == "?" {
		return 0, 0, "", fmt.Errorf("the master of slots %d-%d has no known address", first, last)
	}
	if host == "" {
		host = defaultHost
	}
	return int(first), int(last), net.JoinHostPort(host, strconv.FormatInt(port, 10)), nil
}
