// Package jobqueue is a work queue on Redis streams: a job is a stream
// entry, shared out among workers by a consumer group and acknowledged
// (and deleted) only once its handler succeeded.
//
// A worker that dies leaves its jobs pending; another claims them once
// they have been idle for ClaimIdle. A job that fails is tried again by
// the same worker after a backoff. When a worker stops, the jobs in
// flight are given a while to finish. A queue may be cut into several
// streams (shards, each in its own cluster slot), which a worker reads
// concurrently.
//
// The package knows nothing of what a job means nor of key names: the
// caller names the streams and the group, and handles the jobs.
package jobqueue

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// Job is one entry of a stream of the queue.
type Job struct {
	Stream string            // the stream it is on
	ID     string            // its entry id there
	Fields map[string]string // what the producer recorded
	// Resumed is set for a job that may have run before (taken over from
	// another worker, or tried again after a failure): the handler should
	// resume from whatever progress it recorded.
	Resumed bool
}

// Options configure a Queue.
type Options struct {
	// Streams are the shards of the queue; Group is the consumer group
	// on each, and Consumer names this worker in it (unique per process).
	Streams  []string
	Group    string
	Consumer string
	// Handle carries out the jobs of one read: at most Batch, all of one
	// stream. A nil error acknowledges them all; an error leaves them all
	// pending, to be tried again, so a job must be safe to repeat.
	Handle func(ctx context.Context, jobs []Job) error
	// Tidy, if set, returns commands sent with the acknowledgement of
	// jobs (records of their progress to delete, say).
	Tidy func(jobs []Job) rueidis.Commands
	// Batch is how many jobs one read takes at most, and so how many one
	// call of Handle gets (1 when zero): a handler that does the work of
	// many jobs at once can then do it in fewer round trips and Redis
	// calls. Under a light load a read returns the one job there is.
	Batch int
	// ClaimIdle is how long a job may sit unacknowledged with a worker
	// before Run takes it over: that worker is presumed dead. Zero or
	// negative: Run never takes jobs over, leaving that to Reclaim.
	ClaimIdle time.Duration
	// Block is how long one read waits for new jobs.
	Block time.Duration
	// Parallel is how many batches of jobs one worker carries out at
	// once, over all the streams (at least one).
	Parallel int
	// Drain is how long the jobs in flight when Run's context ends may go
	// on to finish them; zero or negative: they stop at once.
	Drain time.Duration
	// Log receives failures worth knowing about (slog.Default when nil).
	Log *slog.Logger
}

// Queue is a worker's handle on a queue.
type Queue struct {
	c    rueidis.Client
	opts Options
	log  *slog.Logger
}

// New returns a Queue reading through client.
func New(client rueidis.Client, opts Options) *Queue {
	opts.Parallel = max(opts.Parallel, 1)
	opts.Batch = max(opts.Batch, 1)
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	return &Queue{c: client, opts: opts, log: log}
}

// Run carries out jobs until ctx is cancelled, reading every stream
// concurrently and running up to Parallel batches at once in all. A job
// that fails is tried again by this worker, after a backoff that starts
// at 100ms and doubles up to 5s. When ctx ends, the jobs in flight are
// given Drain to finish.
func (q *Queue) Run(ctx context.Context) {
	jobCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer stopJobs()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(max(q.opts.Drain, 0), stopJobs) })
	defer stop()
	slots := make(chan struct{}, q.opts.Parallel) // shared by the streams
	var wg sync.WaitGroup
	for _, stream := range q.opts.Streams {
		wg.Go(func() { q.runStream(ctx, jobCtx, stream, slots) })
	}
	wg.Wait()
}

// runStream carries out the jobs of one stream until ctx is cancelled;
// jobs run under jobCtx, each batch taking one of slots.
func (q *Queue) runStream(ctx, jobCtx context.Context, stream string, slots chan struct{}) {
	var lastClaim time.Time
	ready := false // the consumer group exists
	retry := false // this worker has failed jobs of its own pending
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		var jobs []Job
		var err error
		if !ready { // retried with the backoff below while Redis is down
			err = q.EnsureGroup(ctx, stream)
			ready = err == nil
		}
		if err == nil && retry {
			jobs, err = q.read(ctx, stream, "0") // its own pending jobs
			retry = err != nil
		}
		if err == nil && len(jobs) == 0 && q.opts.ClaimIdle > 0 && time.Since(lastClaim) >= q.opts.ClaimIdle/2 {
			jobs, err = q.claim(ctx, stream, q.opts.ClaimIdle)
			lastClaim = time.Now()
		}
		if err == nil && len(jobs) == 0 {
			jobs, err = q.read(ctx, stream, ">")
		}
		if err == nil {
			err = q.runBatch(jobCtx, jobs, slots)
		}
		if err != nil && ctx.Err() == nil {
			q.log.Warn("job queue worker", "stream", stream, "err", err, "retry_in", backoff)
			retry = true
			sleep(ctx, backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// EnsureGroup creates the consumer group (and the stream) if missing. It
// starts at the beginning, so jobs recorded before any worker ran are
// done.
func (q *Queue) EnsureGroup(ctx context.Context, stream string) error {
	err := q.c.Do(ctx, q.c.B().XgroupCreate().Key(stream).Group(q.opts.Group).Id("0").Mkstream().Build()).Error()
	if err != nil && !rueidis.IsRedisBusyGroup(err) {
		return fmt.Errorf("jobqueue: create group on %s: %w", stream, err)
	}
	return nil
}

// read reads jobs for this worker: new ones (from ">"), or those it has
// pending (from "0"), which are marked Resumed.
func (q *Queue) read(ctx context.Context, stream, from string) ([]Job, error) {
	res, err := q.c.Do(ctx, q.c.B().Xreadgroup().Group(q.opts.Group, q.opts.Consumer).Count(int64(q.opts.Batch)).
		Block(q.opts.Block.Milliseconds()).Streams().Key(stream).Id(from).Build()).AsXRead()
	if rueidis.IsRedisNil(err) {
		return nil, nil // nothing new within Block
	}
	if err != nil {
		if strings.Contains(err.Error(), "NOGROUP") { // the stream was deleted (FLUSHALL)
			return nil, q.EnsureGroup(ctx, stream)
		}
		return nil, fmt.Errorf("jobqueue: read %s: %w", stream, err)
	}
	return parse(stream, res[stream], from == "0"), nil
}

// claim takes over up to Batch jobs of stream that another worker has
// left idle for at least idle.
func (q *Queue) claim(ctx context.Context, stream string, idle time.Duration) ([]Job, error) {
	arr, err := q.c.Do(ctx, q.c.B().Xautoclaim().Key(stream).Group(q.opts.Group).Consumer(q.opts.Consumer).
		MinIdleTime(strconv.FormatInt(idle.Milliseconds(), 10)).Start("0-0").Count(int64(q.opts.Batch)).Build()).ToArray()
	if err != nil {
		if strings.Contains(err.Error(), "NOGROUP") {
			return nil, q.EnsureGroup(ctx, stream)
		}
		return nil, fmt.Errorf("jobqueue: claim on %s: %w", stream, err)
	}
	if len(arr) < 2 {
		return nil, nil
	}
	entries, err := arr[1].AsXRange()
	if err != nil {
		return nil, fmt.Errorf("jobqueue: claim on %s: %w", stream, err)
	}
	return parse(stream, entries, true), nil
}

// parse returns the jobs that entries of stream hold; resumed marks them
// Resumed.
func parse(stream string, entries []rueidis.XRangeEntry, resumed bool) []Job {
	jobs := make([]Job, 0, len(entries))
	for _, e := range entries {
		jobs = append(jobs, Job{Stream: stream, ID: e.ID, Fields: e.FieldValues, Resumed: resumed})
	}
	return jobs
}

// runBatch carries out jobs, all of one stream, taking one of slots
// while they run, and if that succeeded acknowledges and deletes them,
// with whatever Tidy adds, in one pipeline.
func (q *Queue) runBatch(ctx context.Context, jobs []Job, slots chan struct{}) error {
	if len(jobs) == 0 {
		return nil
	}
	slots <- struct{}{}
	defer func() { <-slots }()
	if err := q.opts.Handle(ctx, jobs); err != nil {
		return fmt.Errorf("jobs %s (%d): %w", jobs[0].ID, len(jobs), err)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	b := q.c.B()
	stream := jobs[0].Stream
	cmds := rueidis.Commands{
		b.Xack().Key(stream).Group(q.opts.Group).Id(ids...).Build(),
		b.Xdel().Key(stream).Id(ids...).Build(),
	}
	if q.opts.Tidy != nil {
		cmds = append(cmds, q.opts.Tidy(jobs)...)
	}
	for _, r := range q.c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			return fmt.Errorf("jobqueue: acknowledge jobs %s (%d): %w", jobs[0].ID, len(jobs), err)
		}
	}
	return nil
}

// Touch returns a command that renews this worker's claim on j, so that
// a job that is slow but alive is not taken over: send it, with the
// job's progress, after each step of a long job.
func (q *Queue) Touch(j Job) rueidis.Completed {
	return q.c.B().Xclaim().Key(j.Stream).Group(q.opts.Group).Consumer(q.opts.Consumer).MinIdleTime("0").Id(j.ID).Justid().Build()
}
