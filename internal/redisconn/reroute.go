package redisconn

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// The client library learns that a failover moved a master's slots only
// when a node answers MOVED, or after a connection failed, or every
// TopologyRefresh, and then only after a random delay of up to a second;
// commands that time out teach it nothing. So while a master is frozen
// (SIGSTOP, a stalled machine) it goes on sending that master's slots to
// it after its replica took over, and once the old master is resumed and
// has become a replica of its successor, it still sends them there for
// up to a second: reads and writes are redirected (MOVED), but a WAIT
// fails there, and so does the write it confirms. After a kill, it sends
// them to the dead address for as long. A rerouting client watches the
// cluster's slot map while calls fail on the network (time out, or find
// no connection), and once a master's slots have moved, it starts a new
// client, which reads the topology before it sends anything, and sends
// every call through it.

// rerouteWatch is how long after its last call that failed on the
// network a rerouting client goes on watching the slot map, and
// rerouteEvery how often it reads it meanwhile.
const (
	rerouteWatch = 10 * time.Second
	rerouteEvery = 100 * time.Millisecond
)

// retireAfter is how long a client that a failover replaced lives on, for
// the calls and subscriptions under way on it: a live stream listening
// through it ends then, as one on the failed master's shard did at the
// failover.
const retireAfter = 2 * TopologyRefresh

// rerouting is a cluster client that starts a new client of the library
// when a failover moves slots while calls fail on the network (see
// above).
type rerouting struct {
	opt   rueidis.ClientOption
	cur   atomic.Pointer[rueidis.Client]
	nodes *Nodes

	lastFailure atomic.Int64 // Unix nanoseconds
	watching    atomic.Bool

	mu      sync.Mutex
	closed  bool
	retired []rueidis.Client // replaced clients not closed yet
}

// newRerouting returns a rerouting client that starts with c, made with
// opt.
func newRerouting(c rueidis.Client, opt rueidis.ClientOption) *rerouting {
	r := &rerouting{opt: opt}
	r.cur.Store(&c)
	r.nodes = NewNodes(r)
	return r
}

func (r *rerouting) c() rueidis.Client { return *r.cur.Load() }

// observe starts watching the slot map if err says a node did not
// answer: a timeout, or a connection that failed or was refused (not a
// call its caller gave up on).
func (r *rerouting) observe(err error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, rueidis.ErrClosing) {
		return
	}
	r.lastFailure.Store(time.Now().UnixNano())
	if r.watching.CompareAndSwap(false, true) {
		go r.watch()
	}
}

// observeAll is observe of the first failure among results that is not
// Redis's answer.
func (r *rerouting) observeAll(results []rueidis.RedisResult) {
	for _, res := range results {
		if err := res.NonRedisError(); err != nil {
			r.observe(err)
			return
		}
	}
}

// watch reads the slot map every rerouteEvery until rerouteWatch after
// the last call that failed on the network, and reroutes when it
// changes. A change counts once two reads in a row saw it: a master
// resumed after a failover claims its old slots for a moment, until the
// cluster tells it otherwise.
func (r *rerouting) watch() {
	defer r.watching.Store(false)
	var routed, last []SlotRange
	tick := time.NewTicker(rerouteEvery)
	defer tick.Stop()
	for ; time.Since(time.Unix(0, r.lastFailure.Load())) < rerouteWatch && !r.isClosed(); <-tick.C {
		ctx, cancel := context.WithTimeout(context.Background(), 2*NodeTimeout)
		now, err := r.nodes.Slots(ctx)
		cancel()
		if err != nil || len(now) == 0 {
			continue
		}
		switch {
		case routed == nil:
			routed = now
		case !sameSlots(routed, now) && sameSlots(last, now) && r.reroute(gained(routed, now)) == nil:
			routed = now
		}
		last = now
	}
}

// sameSlots reports whether two slot maps give every slot to the same
// master.
func sameSlots(a, b []SlotRange) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gained returns the masters that serve slots in now they did not serve
// in before.
func gained(before, now []SlotRange) []string {
	var out []string
	for _, r := range now {
		if !slices.Contains(before, r) && !slices.Contains(out, r.Addr) {
			out = append(out, r.Addr)
		}
	}
	return out
}

// reroute starts a new client, which reads the topology from masters (the
// ones that took slots over know it before any other node) before it
// sends anything, sends every call through it from then on, and closes
// the one it replaced retireAfter later.
func (r *rerouting) reroute(masters []string) error {
	opt := r.opt
	opt.InitAddress = masters
	fresh, err := rueidis.NewClient(opt)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		fresh.Close()
		return nil
	}
	old := r.cur.Swap(&fresh)
	r.retired = append(r.retired, *old)
	time.AfterFunc(retireAfter, func() { r.retire(*old) })
	return nil
}

// retire closes old, a replaced client, unless Close did.
func (r *rerouting) retire(old rueidis.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.retired {
		if c == old {
			r.retired = append(r.retired[:i], r.retired[i+1:]...)
			old.Close()
			return
		}
	}
}

func (r *rerouting) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *rerouting) B() rueidis.Builder { return r.c().B() }

func (r *rerouting) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	res := r.c().Do(ctx, cmd)
	r.observe(res.NonRedisError())
	return res
}

func (r *rerouting) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	res := r.c().DoMulti(ctx, cmds...)
	r.observeAll(res)
	return res
}

func (r *rerouting) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	res := r.c().DoCache(ctx, cmd, ttl)
	r.observe(res.NonRedisError())
	return res
}

func (r *rerouting) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	res := r.c().DoMultiCache(ctx, cmds...)
	r.observeAll(res)
	return res
}

func (r *rerouting) DoStream(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResultStream {
	return r.c().DoStream(ctx, cmd)
}

func (r *rerouting) DoMultiStream(ctx context.Context, cmds ...rueidis.Completed) rueidis.MultiRedisResultStream {
	return r.c().DoMultiStream(ctx, cmds...)
}

func (r *rerouting) Receive(ctx context.Context, subscribe rueidis.Completed, fn func(rueidis.PubSubMessage)) error {
	return r.c().Receive(ctx, subscribe, fn)
}

func (r *rerouting) Dedicated(fn func(rueidis.DedicatedClient) error) error {
	return r.c().Dedicated(fn)
}

func (r *rerouting) Dedicate() (rueidis.DedicatedClient, func()) { return r.c().Dedicate() }

func (r *rerouting) Nodes() map[string]rueidis.Client { return r.c().Nodes() }

func (r *rerouting) Mode() rueidis.ClientMode { return r.c().Mode() }

// Close closes the client and those it replaced.
func (r *rerouting) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for _, c := range r.retired {
		c.Close()
	}
	r.retired = nil
	r.c().Close()
}
