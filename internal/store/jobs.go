package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
)

// Kinds of delivery job on the deliveries stream.
const (
	jobDeliver   = "deliver"   // put a post on the global timeline and its author's followers' timelines
	jobUndeliver = "undeliver" // take a deleted post off them
	jobCelebrate = "celebrate" // note in every follower's set that the author is a celebrity
)

// jobCmd returns the XADD that records a delivery job on shard q of the
// queue; pid is 0 for a celebrate job.
func (s *Store) jobCmd(q queue, kind string, pid, author int64) rueidis.Completed {
	return s.c.B().Xadd().Key(q.stream).Id("*").FieldValue().
		FieldValue(jobKind, kind).FieldValue(jobPost, id(pid)).FieldValue(jobAuthor, id(author)).Build()
}

// maxEnqueueTries bounds how many shards of the queue a job is offered
// to when their nodes cannot be reached.
const maxEnqueueTries = 4

// shardRest is how long a shard of the queue whose node could not be
// reached is tried last.
const shardRest = 3 * time.Second

// shardOutages remembers, per shard of the queue, when its node last
// could not be reached (unix nanoseconds; zero for never).
type shardOutages [queueShards]atomic.Int64

// order returns the shards to offer author's jobs to: the author's own
// first, then the following ones, with those that failed a moment ago
// moved to the end.
func (o *shardOutages) order(author int64) []int {
	first := queueIndex(author)
	now := time.Now().UnixNano()
	var up, down []int
	for i := range queueShards {
		n := (first + i) % queueShards
		if now-o[n].Load() < int64(shardRest) {
			down = append(down, n)
		} else {
			up = append(up, n)
		}
	}
	return append(up, down...)[:maxEnqueueTries]
}

// enqueue records author's jobs (the commands jobs returns for a shard)
// on one shard of the delivery queue, replicated as Options.WaitReplicas
// asks. Every worker reads every shard, so any shard will do: when the
// node of one cannot be reached (it is failing over), the jobs go to
// another, and a failing master does not stop posting.
func (s *Store) enqueue(ctx context.Context, author int64, jobs func(q queue) rueidis.Commands) error {
	var err error
	for _, n := range s.outages.order(author) {
		q := queueN(n)
		res := s.replicated(ctx, func() rueidis.Commands { return jobs(q) }, q.stream)
		if err = redisconn.FirstErr(res); !redisconn.IsOutage(err) {
			return s.wrap("record delivery job", err)
		}
		s.outages[n].Store(time.Now().UnixNano())
		if ctx.Err() != nil {
			break
		}
	}
	return s.wrap("record delivery job", err)
}
