package kernel

import (
	"context"
	"errors"

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
// A WAIT that times out with fewer replicas than asked fails the write:
// each command's result becomes ErrNotReplicated, which callers treat as
// an outage (the request answers 503 and takes back what it can). The
// write is then on the master alone, which may be a master that a
// failover has already replaced and whose writes are about to be
// discarded: acknowledging it would lose it. It returns the results of
// build's commands.
func (db *DB) Replicated(ctx context.Context, build func() rueidis.Commands, keys ...string) []rueidis.RedisResult {
	if db.Opts.WaitReplicas <= 0 {
		return db.Pipeline(ctx, build)
	}
	n := 0
	var waited []string // a key of each slot waited for
	res := db.Pipeline(ctx, func() rueidis.Commands {
		cmds := build()
		n = len(cmds)
		b := db.C.B()
		waited = waited[:0]
		slots := make(map[uint16]bool, len(keys))
		for _, k := range keys {
			w := b.Wait().Numreplicas(int64(db.Opts.WaitReplicas)).Timeout(db.Opts.WaitTimeout.Milliseconds()).Build().SetSlot(k)
			if !slots[w.Slot()] { // one WAIT per slot covers every key of it
				slots[w.Slot()] = true
				cmds = append(cmds, w)
				waited = append(waited, k)
			}
		}
		return cmds
	})
	if redisconn.FirstErr(res[:n]) == nil {
		for i, r := range res[n:] {
			if acks, err := r.AsInt64(); err != nil || acks < int64(db.Opts.WaitReplicas) {
				db.Log.Warn("a write was not replicated in time; it fails", "key", waited[i],
					"replicas", acks, "wanted", db.Opts.WaitReplicas, "timeout", db.Opts.WaitTimeout, "err", err)
				for j := range res[:n] {
					res[j] = rueidis.NewErrorResult(ErrNotReplicated)
				}
				break
			}
		}
	}
	return res[:n]
}

// ErrNotReplicated reports a write that its replicas did not confirm in
// time.
var ErrNotReplicated = errors.New("the write was not replicated in time")
