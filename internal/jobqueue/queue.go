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
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
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
	// Handle carries out the jobs of one or more reads (at most Batch of
	// each stream, see Run). A nil error acknowledges them all; a
	// JobErrors all but those it names; any other error leaves them all
	// pending. A job left pending is tried again, so a job must be safe
	// to repeat.
	Handle func(ctx context.Context, jobs []Job) error
	// Tidy, if set, returns commands sent with the acknowledgement of
	// jobs, all of one stream (records of their progress to delete, say).
	Tidy func(jobs []Job) rueidis.Commands
	// Batch is how many jobs one read of a stream takes at most (1 when
	// zero); one call of Handle gets up to Batch of each stream: a
	// handler that does the work of many jobs at once can then do it in
	// fewer round trips and Redis calls. Under a light load a read
	// returns the one job there is.
	Batch int
	// ClaimIdle is how long a job may sit unacknowledged with a worker
	// before Run takes it over: that worker is presumed dead. Zero or
	// negative: Run never takes jobs over, leaving that to Reclaim.
	ClaimIdle time.Duration
	// Block is how long one read waits for new jobs.
	Block time.Duration
	// Parallel is how many calls of Handle one worker makes at once
	// (at least one).
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
// concurrently, and hands them to Handle in groups (see gather): under a
// backlog a group holds the oldest jobs of every stream, and successive
// groups follow each other in the order the jobs were queued, so that
// work done in that order (such as pushing onto timelines) stays in it.
// Up to Parallel groups run at once. A job that fails is tried again by
// this worker, after a backoff that starts at 100ms and doubles up to
// 5s. When ctx ends, the jobs in flight are given Drain to finish.
func (q *Queue) Run(ctx context.Context) {
	jobCtx, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer stopJobs()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(max(q.opts.Drain, 0), stopJobs) })
	defer stop()
	reads, groups := make(chan read), make(chan []read)
	var runners, readers sync.WaitGroup
	for range q.opts.Parallel {
		runners.Go(func() { q.runGroups(jobCtx, groups) })
	}
	gathered := make(chan struct{})
	go func() { q.gather(reads, groups); close(groups); close(gathered) }()
	for _, stream := range q.opts.Streams {
		readers.Go(func() { q.runStream(ctx, stream, reads) })
	}
	readers.Wait()
	close(reads)
	<-gathered
	runners.Wait()
}

// runStream reads the jobs of one stream until ctx is cancelled, and
// hands them over to be run, waiting until they are done before reading
// again; jobs handed back for later (see split) go with the next read.
func (q *Queue) runStream(ctx context.Context, stream string, reads chan<- read) {
	var lastClaim time.Time
	var left []Job
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
			jobs, err = q.read(ctx, stream, "0", q.opts.Batch, false) // its own pending jobs
			retry = err != nil
		}
		if err == nil && len(jobs) == 0 && q.opts.ClaimIdle > 0 && time.Since(lastClaim) >= q.opts.ClaimIdle/2 {
			jobs, err = q.claim(ctx, stream, q.opts.ClaimIdle)
			lastClaim = time.Now()
		}
		if err == nil && len(jobs) == 0 {
			if n := q.opts.Batch - len(left); n > 0 {
				jobs, err = q.read(ctx, stream, ">", n, len(left) == 0)
			}
			if err == nil {
				jobs, left = append(left, jobs...), nil
			}
		}
		if err == nil && len(jobs) > 0 {
			done := make(chan result, 1)
			select {
			case reads <- read{stream: stream, jobs: jobs, done: done}:
				res := <-done
				err, left = res.err, res.left
			case <-ctx.Done(): // the jobs stay pending, for another worker
			}
		}
		if err != nil && ctx.Err() == nil {
			q.log.Warn("job queue worker", "stream", stream, "err", err, "retry_in", backoff)
			retry, left = true, nil // what was left is pending: read again from "0"
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

// read reads up to count jobs for this worker, waiting up to Block for
// them if block is set: new ones (from ">"), or those it has pending
// (from "0"), which are marked Resumed.
func (q *Queue) read(ctx context.Context, stream, from string, count int, block bool) ([]Job, error) {
	cmd := q.c.B().Xreadgroup().Group(q.opts.Group, q.opts.Consumer).Count(int64(count))
	var res map[string][]rueidis.XRangeEntry
	var err error
	if block {
		res, err = q.c.Do(ctx, cmd.Block(q.opts.Block.Milliseconds()).Streams().Key(stream).Id(from).Build()).AsXRead()
	} else {
		res, err = q.c.Do(ctx, cmd.Streams().Key(stream).Id(from).Build()).AsXRead()
	}
	if rueidis.IsRedisNil(err) {
		return nil, nil // nothing new
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

// JobRef names a job: its entry id counts within its stream only.
type JobRef struct{ Stream, ID string }

// Ref returns j's name.
func (j Job) Ref() JobRef { return JobRef{j.Stream, j.ID} }

// JobErrors is an error Handle may return to say which of its jobs
// failed: the others succeeded and are acknowledged, so that a job that
// keeps failing holds back no other.
type JobErrors map[JobRef]error

func (e JobErrors) Error() string {
	refs := slices.SortedFunc(maps.Keys(e), func(a, b JobRef) int {
		return cmp.Or(cmp.Compare(a.Stream, b.Stream), cmp.Compare(a.ID, b.ID))
	})
	if len(refs) == 0 {
		return "no job failed"
	}
	return fmt.Sprintf("%d jobs failed, %s %s first: %v", len(refs), refs[0].Stream, refs[0].ID, e[refs[0]])
}

// runJobs carries out jobs, of one stream or several, acknowledges and
// deletes those that succeeded, with whatever Tidy adds for each
// stream's, in one pipeline, and returns the errors of those that did
// not (nil when all succeeded).
func (q *Queue) runJobs(ctx context.Context, jobs []Job) JobErrors {
	if len(jobs) == 0 {
		return nil
	}
	var failed JobErrors
	switch err := q.opts.Handle(ctx, jobs); {
	case errors.As(err, &failed):
	case err != nil:
		failed = JobErrors{}
		for _, j := range jobs {
			failed[j.Ref()] = err
		}
		return failed
	}
	done := slices.DeleteFunc(slices.Clone(jobs), func(j Job) bool { return failed[j.Ref()] != nil })
	if err := q.acknowledge(ctx, done); err != nil {
		if failed == nil {
			failed = JobErrors{}
		}
		for _, j := range done {
			failed[j.Ref()] = err
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// acknowledge acknowledges and deletes jobs that succeeded, with
// whatever Tidy adds for each stream's, in one pipeline.
func (q *Queue) acknowledge(ctx context.Context, jobs []Job) error {
	if len(jobs) == 0 {
		return nil
	}
	var cmds rueidis.Commands
	b := q.c.B()
	for _, stream := range q.opts.Streams {
		var ids []string
		var mine []Job
		for _, j := range jobs {
			if j.Stream == stream {
				ids, mine = append(ids, j.ID), append(mine, j)
			}
		}
		if len(ids) == 0 {
			continue
		}
		cmds = append(cmds,
			b.Xack().Key(stream).Group(q.opts.Group).Id(ids...).Build(),
			b.Xdel().Key(stream).Id(ids...).Build())
		if q.opts.Tidy != nil {
			cmds = append(cmds, q.opts.Tidy(mine)...)
		}
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
