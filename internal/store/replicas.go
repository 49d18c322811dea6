package store

import (
	"context"

	"github.com/redis/rueidis"
)

// replicated sends the commands build returns as one pipeline (see
// pipeline), followed, when the store waits for replicas
// (Options.WaitReplicas), by a WAIT on the node of each of keys, the keys
// those commands write. Redis's WAIT waits for the writes sent before it
// on the same connection; commands with a WAIT go out together on a
// connection of their own, so each WAIT covers the writes to its node.
//
// A WAIT that times out with fewer replicas than asked is logged, and the
// write stands: it is on the master, and is lost only if the master fails
// before its replicas catch up (docs/OPERATIONS.md says which Redis
// settings close that gap). It returns the results of build's commands.
func (s *Store) replicated(ctx context.Context, build func() rueidis.Commands, keys ...string) []rueidis.RedisResult {
	if s.opts.WaitReplicas <= 0 {
		return s.pipeline(ctx, build)
	}
	n := 0
	res := s.pipeline(ctx, func() rueidis.Commands {
		cmds := build()
		n = len(cmds)
		b := s.c.B()
		for _, k := range keys {
			cmds = append(cmds, b.Wait().Numreplicas(int64(s.opts.WaitReplicas)).
				Timeout(s.opts.WaitTimeout.Milliseconds()).Build().SetSlot(k))
		}
		return cmds
	})
	if firstErr(res[:n]) == nil {
		for i, r := range res[n:] {
			if acks, err := r.AsInt64(); err != nil || acks < int64(s.opts.WaitReplicas) {
				s.log.Warn("a write was acknowledged before enough replicas had it",
					"key", keys[i], "replicas", acks, "wanted", s.opts.WaitReplicas, "err", err)
			}
		}
	}
	return res[:n]
}
