package kernel

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// JobCmd returns the XADD that records a delivery job on shard q of the
// queue; pid is 0 for a celebrate job.
func (db *DB) JobCmd(q schema.Queue, kind string, pid, author int64) rueidis.Completed {
	return schema.Job(db.C.B(), q, kind, pid, author)
}

// maxEnqueueTries bounds how many shards of the queue a job is offered
// to when their nodes cannot be reached.
const maxEnqueueTries = 4

// shardRest is how long a shard of the queue whose node could not be
// reached is tried last.
const shardRest = 3 * time.Second

// ShardOutages remembers, per shard of the queue, when its node last
// could not be reached (unix nanoseconds; zero for never).
type ShardOutages [schema.QueueShards]atomic.Int64

// order returns the shards to offer author's jobs to: the author's own
// first, then the following ones, with those that failed a moment ago
// moved to the end.
func (o *ShardOutages) order(author int64) []int {
	first := schema.QueueIndex(author)
	now := time.Now().UnixNano()
	var up, down []int
	for i := range schema.QueueShards {
		n := (first + i) % schema.QueueShards
		if now-o[n].Load() < int64(shardRest) {
			down = append(down, n)
		} else {
			up = append(up, n)
		}
	}
	return append(up, down...)[:maxEnqueueTries]
}

// Enqueue records author's jobs (the commands jobs returns for a shard)
// on one shard of the delivery queue (see OnShard).
func (db *DB) Enqueue(ctx context.Context, author int64, jobs func(q schema.Queue) rueidis.Commands) error {
	_, err := db.OnShard(ctx, author, jobs)
	return db.Wrap("record delivery job", err)
}

// OnShard runs the commands cmds returns for a shard of the queue on one
// shard, replicated as Options.WaitReplicas asks (the shard's stream,
// and the keys of other slots the commands write), and returns which.
// Every worker reads every shard, so any shard will do: author's own is
// tried first, and when the node of one cannot be reached (it is failing
// over), the next, so a failing master does not stop posting or
// following.
func (db *DB) OnShard(ctx context.Context, author int64, cmds func(q schema.Queue) rueidis.Commands, keys ...string) (schema.Queue, error) {
	var err error
	for _, n := range db.Outages.order(author) {
		q := schema.QueueN(n)
		res := db.Replicated(ctx, func() rueidis.Commands { return cmds(q) }, append([]string{q.Stream}, keys...)...)
		if err = redisconn.FirstErr(res); !redisconn.IsOutage(err) {
			return q, err
		}
		db.Outages[n].Store(time.Now().UnixNano())
		if ctx.Err() != nil {
			break
		}
	}
	return schema.Queue{}, err
}
