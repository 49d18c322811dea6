package kernel

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
)

// Replicated sends the commands build returns as one pipeline (see
// Pipeline), followed, when the store waits for replicas
// (Options.WaitReplicas), by a WAIT on the node of each of keys, the keys
// those commands write. Redis's WAIT waits for the writes sent before it
// on the same connection; commands with a WAIT go out together on a
// connection of their own, so each WAIT covers the writes to its node.
//
// Each WAIT asks for every replica in sync that its master has
// (redisconn.Nodes.Replicas, read about every second), and for
// Options.WaitReplicas at least: when a master fails, whichever of its
// replicas the cluster elects then has every write it acknowledged. A
// WAIT that comes back with fewer replicas than it asked for still
// succeeds if as many as the master has in sync now (read again at once,
// and its slot's master with it: a failover may have moved the slot)
// have the write, and at least WaitReplicas: a master that lost a
// replica goes on with those it has.
//
// Otherwise the write fails: each command's result becomes
// ErrNotReplicated, which callers treat as an outage (the request
// answers 503 and takes back what it can). The write is then on the
// master alone, which may be a master that a failover has already
// replaced and whose writes are about to be discarded: acknowledging it
// would lose it. It returns the results of build's commands.
func (db *DB) Replicated(ctx context.Context, build func() rueidis.Commands, keys ...string) []rueidis.RedisResult {
	if db.Opts.WaitReplicas <= 0 {
		return db.Pipeline(ctx, build)
	}
	db.replicas.ensure(ctx)
	n := 0
	var waits []wait
	res := db.Pipeline(ctx, func() rueidis.Commands {
		cmds := build()
		n = len(cmds)
		waits = waits[:0]
		seen := make(map[uint16]bool, len(keys))
		for _, k := range keys {
			w := db.waitCmd(db.Opts.WaitReplicas, k)
			if seen[w.Slot()] { // one WAIT per slot covers every key of it
				continue
			}
			seen[w.Slot()] = true
			want := db.replicasToWait(w.Slot())
			if want != db.Opts.WaitReplicas {
				w = db.waitCmd(want, k)
			}
			cmds = append(cmds, w)
			waits = append(waits, wait{key: k, slot: w.Slot(), want: want})
		}
		return cmds
	})
	if redisconn.FirstErr(res[:n]) == nil {
		returned := time.Now()
		for i, r := range res[n:] {
			if acks, err := r.AsInt64(); err != nil || !db.enough(ctx, waits[i], acks, returned) {
				db.Log.Warn("a write was not replicated in time; it fails", "key", waits[i].key,
					"replicas", acks, "wanted", waits[i].want, "timeout", db.Opts.WaitTimeout, "err", err)
				for j := range res[:n] {
					res[j] = rueidis.NewErrorResult(ErrNotReplicated)
				}
				break
			}
		}
	}
	return res[:n]
}

// wait is a WAIT of Replicated: a key of the slot it covers, and how
// many replicas it asked for.
type wait struct {
	key  string
	slot uint16
	want int
}

// waitCmd is a WAIT for replicas on the node of key.
func (db *DB) waitCmd(replicas int, key string) rueidis.Completed {
	return db.C.B().Wait().Numreplicas(int64(replicas)).Timeout(db.Opts.WaitTimeout.Milliseconds()).Build().SetSlot(key)
}

// replicasToWait is how many replicas a write to slot waits for: every
// replica in sync its master had when last read, Options.WaitReplicas at
// least. A master the slot map does not know yet counts as having as
// many as the master that has the most.
func (db *DB) replicasToWait(slot uint16) int {
	n, _ := db.replicas.of(db.Breakers.Master(slot))
	return max(db.Opts.WaitReplicas, n)
}

// enough reports whether acks replicas, as a WAIT that returned at
// returned found them, are enough for w: as many as it asked for, or at
// least Options.WaitReplicas and as many as its slot's master has in
// sync by a read that began after the WAIT returned (the slot map read
// again too, if it was read before).
func (db *DB) enough(ctx context.Context, w wait, acks int64, returned time.Time) bool {
	if acks >= int64(w.want) {
		return true
	}
	if acks < int64(db.Opts.WaitReplicas) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, redisconn.NodeTimeout)
	defer cancel()
	if err := db.Breakers.RefreshSince(ctx, returned); err != nil {
		db.Log.Warn("cannot read which master serves each slot", "err", err)
	}
	addr := db.Breakers.Master(w.slot)
	n, ok := db.replicas.reread(ctx, addr, returned)
	return ok && addr != "" && acks >= int64(n)
}

// ErrNotReplicated reports a write that its replicas did not confirm in
// time.
var ErrNotReplicated = errors.New("the write was not replicated in time")

// replicaRefresh is how often the counts of replicas in sync are read
// again, in the background, while writes wait for replicas.
const replicaRefresh = time.Second

// replicaCounts are how many replicas in sync each master has, by
// address, read in the background about every replicaRefresh while they
// are used, and on demand.
type replicaCounts struct {
	nodes      *redisconn.Nodes
	counts     atomic.Pointer[map[string]replicaCount]
	refreshing atomic.Bool
	tried      atomic.Int64 // when the last background read began, in Unix nanoseconds
	mu         sync.Mutex   // held while counts change, and by reads on demand
}

// replicaCount is one master's count and when its read began.
type replicaCount struct {
	n    int
	read time.Time
}

// of returns the count of the master at addr, or, for a master not
// counted, the largest count of any; false when none is known. It reads
// them all again in the background if the last read began more than
// replicaRefresh ago.
func (rc *replicaCounts) of(addr string) (int, bool) {
	if began := rc.tried.Load(); time.Now().UnixNano()-began > int64(replicaRefresh) &&
		rc.refreshing.CompareAndSwap(false, true) {
		rc.tried.Store(time.Now().UnixNano())
		go func() {
			defer rc.refreshing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 2*redisconn.NodeTimeout)
			defer cancel()
			rc.readAll(ctx)
		}()
	}
	m := rc.counts.Load()
	if m == nil {
		return 0, false
	}
	if c, ok := (*m)[addr]; ok {
		return c.n, true
	}
	most := 0
	for _, c := range *m {
		most = max(most, c.n)
	}
	return most, len(*m) > 0
}

// ensure reads every master's count now if none was ever read, so that
// the first writes wait for every replica too.
func (rc *replicaCounts) ensure(ctx context.Context) {
	if rc.counts.Load() != nil {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.counts.Load() == nil {
		ctx, cancel := context.WithTimeout(ctx, redisconn.NodeTimeout)
		defer cancel()
		rc.store(rc.nodes.Replicas(ctx), time.Now())
	}
}

// readAll reads every master's count (in the background: see of).
func (rc *replicaCounts) readAll(ctx context.Context) {
	began := time.Now()
	counts := rc.nodes.Replicas(ctx)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.store(counts, began)
}

// store replaces the counts with those of a read that began at began,
// but for those read since; the masters that did not answer drop out.
// rc.mu is held.
func (rc *replicaCounts) store(counts map[string]int, began time.Time) {
	m := make(map[string]replicaCount, len(counts))
	for addr, n := range counts {
		m[addr] = replicaCount{n: n, read: began}
	}
	if old := rc.counts.Load(); old != nil {
		for addr, c := range *old {
			if c.read.After(began) {
				m[addr] = c
			}
		}
	}
	rc.counts.Store(&m)
}

// reread returns the count of the master at addr by a read that began
// at since or later, reading it now unless another caller just did;
// false if it does not answer.
func (rc *replicaCounts) reread(ctx context.Context, addr string, since time.Time) (int, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if m := rc.counts.Load(); m != nil {
		if c, ok := (*m)[addr]; ok && !c.read.Before(since) {
			return c.n, true
		}
	}
	began := time.Now()
	n, err := rc.nodes.ReplicasOf(ctx, addr)
	if err != nil {
		return 0, false
	}
	m := map[string]replicaCount{}
	if old := rc.counts.Load(); old != nil {
		m = maps.Clone(*old)
	}
	m[addr] = replicaCount{n: n, read: began}
	rc.counts.Store(&m)
	return n, true
}
