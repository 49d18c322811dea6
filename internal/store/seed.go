package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// SeedOptions describe the synthetic network Seed writes.
type SeedOptions struct {
	NetworkOptions
	Password string // every user's password
	// Progress, if set, is told what is being written, now and then.
	Progress func(stage string, done, total int)
}

// Seed writes a synthetic network (see NetworkOptions) straight into an
// empty database, in large pipelines, for benchmarks.
func (s *Store) Seed(ctx context.Context, o SeedOptions) (NetworkStats, error) {
	if o.Until.IsZero() {
		o.Until = time.Now()
	}
	if err := o.check(); err != nil {
		return NetworkStats{}, err
	}
	if err := s.checkEmpty(ctx); err != nil {
		return NetworkStats{}, err
	}
	hash, err := s.hashPassword(ctx, o.Password)
	if err != nil {
		return NetworkStats{}, err
	}
	e := &emitter{n: newNetwork(o.NetworkOptions), out: &redisSink{s: s, ctx: ctx}, hash: hash,
		homeCap: s.opts.HomeCap, progress: o.Progress}
	return e.run()
}

// redisSink sends commands to Redis in pipelines of seedPipeline.
type redisSink struct {
	s    *Store
	ctx  context.Context
	cmds rueidis.Commands
}

const seedPipeline = 5000

func (r *redisSink) command(args ...string) error {
	b := r.s.c.B()
	r.cmds = append(r.cmds, b.Arbitrary(args[0]).Keys(args[1]).Args(args[2:]...).Build())
	if len(r.cmds) >= seedPipeline {
		return r.flush()
	}
	return nil
}

func (r *redisSink) ints(name, key string, values []int64) error {
	args := make([]string, len(values))
	for i, v := range values {
		args[i] = id(v)
	}
	r.cmds = append(r.cmds, r.s.c.B().Arbitrary(name).Keys(key).Args(args...).Build())
	if len(r.cmds) >= seedPipeline {
		return r.flush()
	}
	return nil
}

func (r *redisSink) flush() error {
	if len(r.cmds) == 0 {
		return nil
	}
	err := firstErr(r.s.c.DoMulti(r.ctx, r.cmds...))
	r.cmds = r.cmds[:0]
	return r.s.wrap("seed", err)
}
