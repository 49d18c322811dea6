package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// Kinds of delivery job on the deliveries stream.
const (
	jobDeliver   = "deliver"   // push a post onto its author's followers' timelines
	jobUndeliver = "undeliver" // take a deleted post off them
)

// jobCmd returns the XADD that records a delivery job.
func (s *Store) jobCmd(kind string, pid, author int64) rueidis.Completed {
	return s.c.B().Xadd().Key(keyDeliveries).Id("*").FieldValue().
		FieldValue("kind", kind).FieldValue("post", id(pid)).FieldValue("author", id(author)).Build()
}

// DeliveryOptions configure a delivery worker.
type DeliveryOptions struct {
	// Consumer names this worker in the consumer group; unique per process.
	Consumer string
	// Batch is how many followers one pipeline delivers to (1000 when zero).
	Batch int
	// ClaimIdle is how long a job may sit unacknowledged with a worker
	// before another takes it over: the first is presumed dead (30s when
	// zero). Negative: RunDelivery never takes jobs over, leaving that to
	// Maintain, which servers run one at a time.
	ClaimIdle time.Duration
	// Block is how long one read waits for new jobs (2s when zero).
	Block time.Duration
	// Parallel is how many jobs one worker carries out at once (8 when
	// zero): jobs are bound by round trips, so overlapping them keeps
	// Redis busy.
	Parallel int
	// Progress, if set, is called after each batch of a job.
	Progress func(p DeliveryProgress)
}

// DeliveryProgress reports how far a delivery job has got.
type DeliveryProgress struct {
	Job       string // stream entry id
	Kind      string // "deliver" or "undeliver"
	Post      int64
	Done      int // followers handled so far
	Delivered int // of which were active and received the post
}

func (o *DeliveryOptions) setDefaults() {
	if o.Batch == 0 {
		o.Batch = 1000
	}
	if o.ClaimIdle == 0 {
		o.ClaimIdle = 30 * time.Second
	}
	if o.Block == 0 {
		o.Block = 2 * time.Second
	}
	if o.Parallel == 0 {
		o.Parallel = 8
	}
}

// job is one entry of the deliveries stream.
type job struct {
	id      string
	kind    string
	post    int64
	author  int64
	claimed bool // taken over from another worker, which may have made progress
}

// RunDelivery carries out delivery jobs until ctx is cancelled. Every
// `retwis serve` runs one; they share the work through a consumer group.
// A job is acknowledged only when done, so a worker that dies leaves its
// job pending, and another worker claims it once it has been idle for
// ClaimIdle and finishes it, resuming from the recorded progress.
// Delivering twice is harmless: timelines ignore ids they already hold.
func (s *Store) RunDelivery(ctx context.Context, opts DeliveryOptions) error {
	opts.setDefaults()
	var lastClaim time.Time
	ready := false // the consumer group exists
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		var jobs []job
		var err error
		if !ready { // retried with the backoff below while Redis is down
			err = s.ensureGroup(ctx)
			ready = err == nil
		}
		if err == nil && opts.ClaimIdle > 0 && time.Since(lastClaim) >= opts.ClaimIdle/2 {
			jobs, err = s.claimJobs(ctx, opts)
			for i := range jobs {
				jobs[i].claimed = true
			}
			lastClaim = time.Now()
		}
		if err == nil && len(jobs) == 0 {
			jobs, err = s.readJobs(ctx, opts)
		}
		if err == nil {
			err = s.runJobs(ctx, jobs, opts)
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("delivery worker", "err", err, "retry_in", backoff)
			sleep(ctx, backoff)
			backoff = min(2*backoff, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// ensureGroup creates the consumer group (and the stream) if missing. It
// starts at the beginning, so jobs recorded before any worker ran are done.
func (s *Store) ensureGroup(ctx context.Context) error {
	err := s.c.Do(ctx, s.c.B().XgroupCreate().Key(keyDeliveries).Group(deliveryGroup).Id("0").Mkstream().Build()).Error()
	if err != nil && !rueidis.IsRedisBusyGroup(err) {
		return s.wrap("delivery: create group", err)
	}
	return nil
}

func (s *Store) readJobs(ctx context.Context, opts DeliveryOptions) ([]job, error) {
	res, err := s.c.Do(ctx, s.c.B().Xreadgroup().Group(deliveryGroup, opts.Consumer).Count(int64(2*opts.Parallel)).
		Block(opts.Block.Milliseconds()).Streams().Key(keyDeliveries).Id(">").Build()).AsXRead()
	if rueidis.IsRedisNil(err) {
		return nil, nil // nothing new within Block
	}
	if err != nil {
		if strings.Contains(err.Error(), "NOGROUP") { // the stream was deleted (FLUSHALL)
			return nil, s.ensureGroup(ctx)
		}
		return nil, s.wrap("delivery: read", err)
	}
	return parseJobs(res[keyDeliveries]), nil
}

// claimJobs takes over jobs another worker has left idle for ClaimIdle.
func (s *Store) claimJobs(ctx context.Context, opts DeliveryOptions) ([]job, error) {
	arr, err := s.c.Do(ctx, s.c.B().Xautoclaim().Key(keyDeliveries).Group(deliveryGroup).Consumer(opts.Consumer).
		MinIdleTime(strconv.FormatInt(opts.ClaimIdle.Milliseconds(), 10)).Start("0-0").Count(int64(opts.Parallel)).Build()).ToArray()
	if err != nil {
		if strings.Contains(err.Error(), "NOGROUP") {
			return nil, s.ensureGroup(ctx)
		}
		return nil, s.wrap("delivery: claim", err)
	}
	if len(arr) < 2 {
		return nil, nil
	}
	entries, err := arr[1].AsXRange()
	if err != nil {
		return nil, s.wrap("delivery: claim", err)
	}
	return parseJobs(entries), nil
}

func parseJobs(entries []rueidis.XRangeEntry) []job {
	jobs := make([]job, 0, len(entries))
	for _, e := range entries {
		j := job{id: e.ID, kind: e.FieldValues["kind"]}
		j.post, _ = strconv.ParseInt(e.FieldValues["post"], 10, 64)
		j.author, _ = strconv.ParseInt(e.FieldValues["author"], 10, 64)
		jobs = append(jobs, j)
	}
	return jobs
}

// runJobs carries out jobs, up to opts.Parallel at once, acknowledging
// each when it is done. It returns the first error.
func (s *Store) runJobs(ctx context.Context, jobs []job, opts DeliveryOptions) error {
	sem := make(chan struct{}, opts.Parallel)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs <- s.runAndAck(ctx, j, opts)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) runAndAck(ctx context.Context, j job, opts DeliveryOptions) error {
	if j.post == 0 || j.author == 0 || (j.kind != jobDeliver && j.kind != jobUndeliver) {
		s.log.Error("dropping a malformed delivery job", "job", j.id)
	} else if err := s.runJob(ctx, j, opts); err != nil {
		return fmt.Errorf("job %s: %w", j.id, err)
	}
	b := s.c.B()
	cmds := rueidis.Commands{
		b.Xack().Key(keyDeliveries).Group(deliveryGroup).Id(j.id).Build(),
		b.Xdel().Key(keyDeliveries).Id(j.id).Build(),
		b.Hdel().Key(keyProgress).Field(j.id).Build(),
		b.Del().Key(keyJobFollowers(j.author, j.id)).Build(),
	}
	return s.wrap("delivery: acknowledge", firstErr(s.c.DoMulti(ctx, cmds...)))
}

// runJob walks the author's followers in batches from where the job got
// to, and pushes the post onto (or takes it off) their timelines. After
// each batch it records how far it got, so a worker that takes the job
// over does not start again from the beginning.

// followerSource returns the key to walk the job's followers in. A job
// of more than one batch walks a snapshot taken when it started: in the
// live set, an unfollow shifts every later rank down by one, and the
// walk, which goes by rank, would skip a follower. A worker taking the
// job over finds the snapshot already there (COPY does not replace it).
func (s *Store) followerSource(ctx context.Context, j job, opts DeliveryOptions) (string, error) {
	b := s.c.B()
	live, snap := keyFollowers(j.author), keyJobFollowers(j.author, j.id)
	n, err := s.c.Do(ctx, b.Zcard().Key(live).Build()).AsInt64()
	if err != nil {
		return "", s.wrap("delivery: followers", err)
	}
	if n <= int64(opts.Batch) && !j.claimed {
		return live, nil
	}
	if err := s.c.Do(ctx, b.Copy().Source(live).Destination(snap).Build()).Error(); err != nil {
		return "", s.wrap("delivery: snapshot followers", err)
	}
	return snap, nil
}
func (s *Store) runJob(ctx context.Context, j job, opts DeliveryOptions) error {
	b := s.c.B()
	var done int64
	if j.claimed { // only a job taken over can have progress to resume from
		var err error
		done, err = s.c.Do(ctx, b.Hget().Key(keyProgress).Field(j.id).Build()).AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return s.wrap("delivery: progress", err)
		}
	}
	p := DeliveryProgress{Job: j.id, Kind: j.kind, Post: j.post, Done: int(done)}
	src, err := s.followerSource(ctx, j, opts)
	if err != nil {
		return err
	}
	for {
		followers, err := s.c.Do(ctx, b.Zrange().Key(src).
			Min(strconv.Itoa(p.Done)).Max(strconv.Itoa(p.Done+opts.Batch-1)).Build()).AsIntSlice()
		if err != nil {
			return s.wrap("delivery: followers", err)
		}
		if len(followers) == 0 {
			return nil
		}
		n, err := s.deliverBatch(ctx, j, followers)
		if err != nil {
			return err
		}
		p.Done += len(followers)
		p.Delivered += n
		last := len(followers) < opts.Batch // no progress worth recording then
		if !last {
			err := s.c.Do(ctx, b.Hset().Key(keyProgress).FieldValue().FieldValue(j.id, strconv.Itoa(p.Done)).Build()).Error()
			if err != nil {
				return s.wrap("delivery: progress", err)
			}
		}
		if opts.Progress != nil {
			opts.Progress(p)
		}
		if last {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// deliverBatch pushes the job's post onto (or takes it off) the timelines
// of those followers who are active, in one pipeline, and returns how
// many it pushed to.
func (s *Store) deliverBatch(ctx context.Context, j job, followers []int64) (int, error) {
	if j.kind == jobDeliver {
		var err error
		if followers, err = s.active(ctx, followers); err != nil {
			return 0, err
		}
	}
	if len(followers) == 0 {
		return 0, nil
	}
	p, capacity := id(j.post), strconv.Itoa(s.opts.HomeCap)
	res := s.pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, len(followers))
		for i, f := range followers {
			if j.kind == jobDeliver {
				cmds[i] = pushID.cmd(s.c, []string{keyHome(f)}, p, capacity)
			} else {
				cmds[i] = s.c.B().Lrem().Key(keyHome(f)).Count(0).Element(p).Build()
			}
		}
		return cmds
	})
	return len(followers), s.wrap("delivery: push", firstErr(res))
}

// active returns those of uids who have been seen within InactiveAfter;
// users never seen by this version of retwis count as active.
func (s *Store) active(ctx context.Context, uids []int64) ([]int64, error) {
	members := make([]string, len(uids))
	for i, u := range uids {
		members[i] = id(u)
	}
	scores, err := s.c.Do(ctx, s.c.B().Zmscore().Key(keyLastSeen).Member(members...).Build()).ToArray()
	if err != nil {
		return nil, s.wrap("delivery: last seen", err)
	}
	horizon := float64(time.Now().Add(-s.opts.InactiveAfter).Unix())
	out := uids[:0:0]
	for i, sc := range scores {
		if seen, err := sc.AsFloat64(); err != nil || seen >= horizon {
			out = append(out, uids[i])
		}
	}
	return out, nil
}
