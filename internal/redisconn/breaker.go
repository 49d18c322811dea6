package redisconn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"
)

// DefaultCircuitOpen is how long a node's circuit stays open, unless
// NewBreakers is told otherwise, before a single call may try the node
// again.
const DefaultCircuitOpen = 2 * time.Second

// CircuitTrip is how long calls to a node must have been timing out,
// none answered in between, for its circuit to open: one slow call of a
// sound node does not open it, nor does a freeze that a failover ends
// within about a second of the first timeouts (the calls that wait for
// it may then succeed on the replica that takes over); a longer one
// does.
const CircuitTrip = time.Second

// ErrCircuitOpen is the error of a call that was not sent because the
// circuit of the node it was bound for is open.
var ErrCircuitOpen = errors.New("circuit open: the node timed out a moment ago")

// Breakers are circuit breakers, one per master: calls bound for a
// master whose calls have been timing out for CircuitTrip (a frozen
// machine, a network split) fail at once, for an open period, rather than each holding a request
// and a connection for the whole command timeout. Once the period is
// over a single call goes through (half-open): if the master answers,
// its circuit closes; if that call times out too, it opens again.
//
// A call is bound for the master that serves its key's hash slot, by
// the cluster's own map (CLUSTER NODES), which Breakers read again every
// TopologyRefresh, in the background, while calls are made. Calls
// without a key, and every call until the map is first read, go
// through. Reads a client sends to replicas (Options.ReadFromReplica)
// count as their master's: the circuit is that of a shard.
type Breakers struct {
	nodes *Nodes
	open  time.Duration
	now   func() time.Time

	slots      atomic.Pointer[slotMap]
	refreshing atomic.Bool
	rereading  sync.Mutex   // held by RefreshSince
	tried      atomic.Int64 // when the map was last read or tried, in Unix nanoseconds

	mu       sync.Mutex
	circuits map[string]*circuit
	// unsettled counts the circuits that are not closed with no timeout
	// counted: while there are none, calls neither wait for mu nor change
	// anything.
	unsettled atomic.Int32

	state *prometheus.Desc
}

// slotMap is which master serves each hash slot, read at a time.
type slotMap struct {
	read   time.Time   // when the read began
	ranges []SlotRange // sorted by First
}

// circuit is the state of one master's breaker.
type circuit struct {
	timedOut  time.Time // the first timeout since the last answer; zero for none
	openUntil time.Time // zero while closed
	probing   bool      // the open period is over and one call is trying the node
}

// settled reports whether c is closed with no timeout counted.
func (c *circuit) settled() bool { return *c == circuit{} }

// The states of a circuit, as the retwis_redis_circuit_state gauge shows
// them.
const (
	circuitClosed   = 0
	circuitOpen     = 1
	circuitHalfOpen = 2
)

// NewBreakers returns breakers for the masters nodes finds, whose
// circuits stay open for open (DefaultCircuitOpen when zero). They are a
// prometheus.Collector of the state of each circuit.
func NewBreakers(nodes *Nodes, open time.Duration) *Breakers {
	if open == 0 {
		open = DefaultCircuitOpen
	}
	return &Breakers{nodes: nodes, open: open, now: time.Now, circuits: map[string]*circuit{},
		state: prometheus.NewDesc("retwis_redis_circuit_state",
			"The circuit breaker of each Redis master: 0 closed (calls go through), 1 open (calls fail at once, "+
				"the master timed out), 2 half-open (one call is trying it again).", []string{"node"}, nil)}
}

// route returns the master that serves slot, or "" when it is not known
// (a call without a key, the map not read yet, no breakers). It reads the
// map again in the background when it is older than TopologyRefresh.
func (b *Breakers) route(slot uint16) string {
	return b.routes().master(slot)
}

// routes returns the slot map to route a call or a pipeline by (nil
// when there are no breakers, or the map is not read yet): a pipeline
// looks at the clock and loads the map once, not once a command. It
// reads the map again in the background when it is older than
// TopologyRefresh.
func (b *Breakers) routes() *slotMap {
	if b == nil {
		return nil
	}
	return b.refreshOlder(TopologyRefresh)
}

// master returns the master that serves slot by m, or "" when it is not
// known (m nil, or a call without a key).
func (m *slotMap) master(slot uint16) string {
	if m == nil || slot >= SlotCount {
		return ""
	}
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].Last >= slot })
	if i < len(m.ranges) && m.ranges[i].First <= slot {
		return m.ranges[i].Addr
	}
	return ""
}

// refreshOlder returns the slot map, and reads it again in the
// background if it is older than age, unless a read is under way or
// began less than CircuitRefresh ago (the nodes did not answer).
func (b *Breakers) refreshOlder(age time.Duration) *slotMap {
	m, now := b.slots.Load(), b.now()
	if (m == nil || now.Sub(m.read) > age) && now.UnixNano()-b.tried.Load() > int64(CircuitRefresh) &&
		b.refreshing.CompareAndSwap(false, true) {
		b.tried.Store(now.UnixNano())
		go b.refresh()
	}
	return m
}

// CircuitRefresh is how old the slot map may be when a call fails
// because its master's circuit is open: a failover may have given the
// master's slots to another.
const CircuitRefresh = 100 * time.Millisecond

// refresh reads the slot map (in the background: see refreshOlder).
func (b *Breakers) refresh() {
	defer b.refreshing.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*NodeTimeout)
	defer cancel()
	b.Refresh(ctx)
}

// Refresh reads the slot map now: calls are routed from the moment it
// returns, rather than after a first read in the background.
func (b *Breakers) Refresh(ctx context.Context) error {
	began := b.now()
	ranges, err := b.nodes.Slots(ctx)
	if err == nil {
		b.slots.Store(&slotMap{read: began, ranges: ranges})
	}
	return err
}

// RefreshSince reads the slot map now unless a read that began at since
// or later did: the callers that learn at once that the map may be out
// of date (a failover) share one read.
func (b *Breakers) RefreshSince(ctx context.Context, since time.Time) error {
	if b == nil {
		return nil
	}
	b.rereading.Lock()
	defer b.rereading.Unlock()
	if m := b.slots.Load(); m != nil && !m.read.Before(since) {
		return nil
	}
	return b.Refresh(ctx)
}

// Master returns the master that serves the key slot of a command with a
// key (rueidis's Completed.Slot) by the slot map, or "" when it is not
// known (see route). Other parts of the client, such as the store's
// waits for replicas, share the map this way. A client that is not a
// cluster's marks its commands' slots (rueidis's NoSlot bit): its one
// master serves them all.
func (b *Breakers) Master(slot uint16) string { return b.route(slot % SlotCount) }

// allow reports whether a call bound for addr may go: its circuit is
// closed, or its open period is over and no other call is trying the
// node (this call then does). Otherwise it returns the call's error.
func (b *Breakers) allow(addr string) error {
	if addr == "" || b.unsettled.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.circuits[addr]
	switch {
	case c == nil || c.openUntil.IsZero():
		return nil
	case !c.probing && !b.now().Before(c.openUntil):
		c.probing = true
		return nil
	}
	b.refreshOlder(CircuitRefresh)
	return fmt.Errorf("redisconn: %s: %w", addr, ErrCircuitOpen)
}

// outcome is what a call's result says of the node it went to.
type outcome int

// The outcomes, in the order in which the commands of a pipeline to one
// node decide its outcome: one answer shows the node alive.
const (
	unknown  outcome = iota // nothing (the caller gave up, a connection refused)
	timedOut                // the node did not answer within the call's own deadline
	answered                // the node answered, whatever it said
)

// outcomeOf classifies the result of a call made under a context whose
// parent is parent. A read the client-side cache answered says nothing
// of the node.
func outcomeOf(parent context.Context, res rueidis.RedisResult) outcome {
	err := res.Error()
	switch {
	case res.IsCacheHit():
		return unknown
	case err == nil || IsReply(err):
		return answered
	case parent.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)):
		return timedOut
	}
	return unknown
}

// record updates addr's circuit with what a call there came to.
func (b *Breakers) record(addr string, o outcome) {
	if addr == "" || (o != timedOut && b.unsettled.Load() == 0) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.circuits[addr]
	if c == nil {
		c = &circuit{}
		b.circuits[addr] = c
	}
	was := c.settled()
	switch o {
	case answered:
		*c = circuit{}
	case timedOut:
		// Calls sent before the circuit opened time out after: they do
		// not make the open period longer.
		now := b.now()
		if c.timedOut.IsZero() {
			c.timedOut = now
		}
		if c.probing || (c.openUntil.IsZero() && now.Sub(c.timedOut) >= CircuitTrip) {
			c.openUntil, c.probing = now.Add(b.open), false
		}
	default:
		c.probing = false // let another call try
	}
	if now := c.settled(); now != was {
		b.unsettled.Add(map[bool]int32{true: -1, false: 1}[now])
	}
}

// Describe implements prometheus.Collector.
func (b *Breakers) Describe(ch chan<- *prometheus.Desc) { ch <- b.state }

// Collect implements prometheus.Collector: the state of the circuit of
// every master that has timed out since the Breakers were made.
func (b *Breakers) Collect(ch chan<- prometheus.Metric) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	for addr, c := range b.circuits {
		state := circuitClosed
		switch {
		case c.openUntil.IsZero():
		case c.probing || !now.Before(c.openUntil):
			state = circuitHalfOpen
		default:
			state = circuitOpen
		}
		ch <- prometheus.MustNewConstMetric(b.state, prometheus.GaugeValue, float64(state), addr)
	}
}
