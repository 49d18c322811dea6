// Package delivery carries out the delivery jobs that the online store
// queues: a worker fans a new post out to the home timelines of its
// author's active followers (or takes a deleted one back off them, or
// notes a new celebrity among what they follow, or makes an edited
// post's indexes follow its text and tells them), batch by batch,
// resuming after a crash from the progress it recorded; under a backlog
// it delivers the posts of many jobs together, each follower's in one
// push. It also finds posts and boosts whose job vanished and queues
// them again.
//
// It is its own package because it is the background half of
// publishing: package posts queues the jobs (Publish, DeletePost) and
// serves the pages, and this package does the fanout through the
// store's exported operations, the kernel (kernel.DB.Deliver: plain
// pushes, scripts only for late ids) and the index builders. The arrows point one way:
// delivery imports store, never the reverse. The delivery queue's share
// of maintenance (Reclaim, RemoveGone, RedeliverVanished) is a Worker's
// too, and package upkeep calls it each round with the worker
// cmd/retwis hands it; Migrate (package posts) creates the queue's
// consumer groups itself, as that needs no handler. The delivery
// metrics (kernel.Metrics.Job) stay in the kernel.
//
// The files: delivery.go, one job at a time (a long job walks a
// snapshot of the followers batch by batch, recording its progress);
// together.go, the fresh jobs a read hands over, delivered together;
// vanished.go, the posts and boosts whose job vanished; boosts.go, what
// the jobs of boosts do besides walking the followers (a boost is a post
// of its own, pushed once per home timeline: kernel.PushBoost).
package delivery

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// Options configure a delivery worker.
type Options struct {
	// Consumer names this worker in the consumer group; unique per process.
	Consumer string
	// Batch is how many followers one pipeline delivers to (1000 when
	// zero). A post to at most Batch followers is delivered with the
	// other such posts handed over with it, together (see
	// deliverTogether).
	Batch int
	// Jobs is how many jobs a worker reads from a shard of the queue at
	// once (256 when zero): under a backlog, the oldest jobs of every
	// shard are handed over at once, in the order they were queued, and
	// their posts delivered together, each follower's new posts in one
	// push (kernel.DB.Deliver).
	Jobs int
	// ClaimIdle is how long a job may sit unacknowledged with a worker
	// before another takes it over: the first is presumed dead (30s when
	// zero). Negative: Run never takes jobs over, leaving that to
	// maintenance (upkeep.Round, through Reclaim), which servers run one
	// at a time.
	ClaimIdle time.Duration
	// Block is how long one read waits for new jobs (2s when zero, at
	// most kernel.MaxBlock).
	Block time.Duration
	// Parallel is how many groups of jobs one worker carries out at once
	// (1 when zero). One at a time, groups run in the order their jobs
	// were queued, and the more jobs wait the larger the next group, whose
	// posts reach each follower in one push; groups run at once make
	// each other's posts late for their common followers (a script call
	// each, see kernel.DB.Deliver) and push fewer posts a command: under
	// a storm of posts, 8 at once cost Redis about 1.7 times the CPU per
	// post of one (docs/PERFORMANCE.md). More let a long job (an author
	// with more than Batch followers) overlap the others.
	Parallel int
	// Progress, if set, is called after each batch of a job.
	Progress func(p Progress)
	// Drain is how long jobs in flight when Run's context ends
	// may go on to finish them (10s when zero; negative: they stop at
	// once, as if the worker died): a server stopped by SIGTERM hands
	// over no half-done work unless a job is that long.
	Drain time.Duration
	// LinkPreviews queues the preview of the first link of each post it
	// delivers (see cardJobs), for the card worker (package cards).
	LinkPreviews bool
	// GoneAfter is how long a worker with nothing pending may stay idle
	// before maintenance removes it from the consumer group (RemoveGone;
	// 1h when zero).
	GoneAfter time.Duration
}

// Progress reports how far a delivery job has got.
type Progress struct {
	Job       string // stream entry id
	Kind      string // "deliver", "undeliver", "celebrate" or "edit"
	Post      int64
	Done      int // followers handled so far
	Delivered int // of which were active and received the post
}

func (o *Options) setDefaults() {
	if o.Batch == 0 {
		o.Batch = 1000
	}
	if o.Jobs == 0 {
		o.Jobs = 256
	}
	if o.ClaimIdle == 0 {
		o.ClaimIdle = 30 * time.Second
	}
	if o.Block == 0 {
		o.Block = 2 * time.Second
	}
	o.Block = min(o.Block, kernel.MaxBlock)
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.Drain == 0 {
		o.Drain = 10 * time.Second
	}
	if o.GoneAfter == 0 {
		o.GoneAfter = time.Hour
	}
}

// job is one delivery job: an entry of a shard of the queue.
type job struct {
	jobqueue.Job
	q      schema.Queue // the shard of the queue it is on
	kind   string
	post   int64
	author int64
	// of is, for a job of a boost, the post it boosts, and boosted the
	// boost as its job found it (read when the job begins).
	of      int64
	boosted kernel.Boosted
}

// parseJob reads a delivery job from its queue entry.
func parseJob(qj jobqueue.Job) job {
	j := job{Job: qj, q: schema.QueueAt(qj.Stream), kind: qj.Fields[schema.JobKind]}
	j.post, _ = strconv.ParseInt(qj.Fields[schema.JobPost], 10, 64)
	j.author, _ = strconv.ParseInt(qj.Fields[schema.JobAuthor], 10, 64)
	j.of, _ = strconv.ParseInt(qj.Fields[schema.JobOf], 10, 64)
	return j
}

// Worker is a delivery worker: its handle on the shards of the delivery
// queue, through which it carries out jobs (Run) and does the queue's
// share of maintenance (Reclaim, RemoveGone, RedeliverVanished, which
// upkeep.Round calls).
type Worker struct {
	st    *store.Store
	lists *lists.Store
	opts  Options
	q     *jobqueue.Queue
}

// New returns a delivery worker on st's database, configured by opts
// (zero fields take their defaults).
func New(st *store.Store, opts Options) *Worker {
	opts.setDefaults()
	w := &Worker{st: st, lists: lists.New(st), opts: opts}
	w.q = w.deliveryQueue(opts)
	return w
}

// Run carries out delivery jobs until ctx is cancelled. Every
// `retwis serve` runs one; they share the work through a consumer group
// on each shard of the queue, which the worker reads concurrently, doing
// up to opts.Parallel jobs at once in all. A job is acknowledged only
// when done, so a worker that dies leaves its job pending, and another
// worker claims it once it has been idle for ClaimIdle and finishes it,
// resuming from the recorded progress. Delivering twice is harmless:
// timelines ignore ids they already hold.
//
// A job that fails (Redis went away) is tried again by the same worker,
// after a backoff that starts at 100ms and doubles up to 5s, rather than
// waiting to be claimed. When ctx ends, the jobs in flight are given
// opts.Drain to finish.
func (w *Worker) Run(ctx context.Context) error {
	w.q.Run(ctx)
	return nil
}

// Reclaim takes over the jobs of every shard of the queue that workers
// left idle for opts.ClaimIdle and finishes them, until none is left;
// it returns how many it did.
func (w *Worker) Reclaim(ctx context.Context) (int, error) {
	return w.q.Reclaim(ctx, w.opts.ClaimIdle)
}

// RemoveGone removes from the consumer group of every shard the workers
// that have nothing pending and have been idle for opts.GoneAfter; it
// returns how many.
func (w *Worker) RemoveGone(ctx context.Context) (int, error) {
	return w.q.RemoveGone(ctx, w.opts.GoneAfter)
}

// deliveryQueue returns a worker's handle on the shards of the delivery
// queue.
func (w *Worker) deliveryQueue(opts Options) *jobqueue.Queue {
	streams := make([]string, schema.QueueShards)
	for n := range streams {
		streams[n] = schema.QueueN(n).Stream
	}
	var q *jobqueue.Queue
	q = jobqueue.New(w.st.C, jobqueue.Options{
		Streams: streams, Group: schema.DeliveryGroup, Consumer: opts.Consumer,
		ClaimIdle: opts.ClaimIdle, Block: opts.Block, Parallel: opts.Parallel, Drain: opts.Drain, Log: w.st.Log,
		Batch:  opts.Jobs,
		Handle: func(ctx context.Context, jobs []jobqueue.Job) error { return w.handleJobs(ctx, q, jobs, opts) },
		Tidy:   w.tidyJobs,
	})
	return q
}

// handleJobs carries out the delivery jobs the queue hands over at once
// (the oldest of every busy shard, see jobqueue.Queue.Run): fresh
// deliver jobs to at most opts.Batch followers together, the others
// (long, resumed, undeliver or celebrate jobs) one by one, and the
// favourite jobs (see favourite) one by one. A malformed
// job is dropped. It names the jobs that failed (jobqueue.JobErrors), so
// that the others are acknowledged.
func (w *Worker) handleJobs(ctx context.Context, q *jobqueue.Queue, qjobs []jobqueue.Job, opts Options) error {
	var together, alone, favourites []job
	for _, qj := range qjobs {
		switch j := parseJob(qj); {
		case !j.valid():
			w.st.Log.Error("dropping a malformed delivery job", "job", j.ID)
		case j.kind == schema.JobFavourite:
			favourites = append(favourites, j)
		case j.together():
			together = append(together, j)
		default:
			alone = append(alone, j)
		}
	}
	failed := jobqueue.JobErrors{}
	long, err := w.deliverTogether(ctx, together, opts)
	if err != nil {
		for _, j := range together {
			failed[j.Ref()] = err
		}
	}
	for _, j := range append(alone, long...) {
		if err := w.handleJob(ctx, q, j, opts); err != nil {
			failed[j.Ref()] = err
		}
	}
	for _, j := range favourites {
		if err := w.favourite(ctx, j); err != nil {
			failed[j.Ref()] = err
		}
	}
	if len(failed) > 0 {
		return failed
	}
	return nil
}

// handleJob carries out one delivery job.
func (w *Worker) handleJob(ctx context.Context, q *jobqueue.Queue, j job, opts Options) error {
	var err error
	if j.kind == schema.JobUnboosts {
		err = w.dropBoosts(ctx, j)
	} else {
		err = w.runJob(ctx, q, j, opts)
	}
	if err == nil && j.kind == schema.JobDeliver {
		err = w.deliverTagged(ctx, j, opts.Batch)
	}
	if err == nil && (j.kind == schema.JobDeliver || j.kind == schema.JobBoost) {
		// Marked before the job is acknowledged: a post (or boost) with
		// neither its job nor the mark lost its job (see RedeliverVanished).
		err = redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
			now := strconv.FormatInt(time.Now().UnixMilli(), 10)
			return rueidis.Commands{kernel.SetIfExists.Cmd(w.st.C, []string{schema.Post(j.post)}, schema.FieldDelivered, now)}
		}))
	}
	w.st.Metrics.Job(j.kind, j.post, err)
	return w.st.Wrap("delivery", err)
}

// tidyJobs returns the commands that remove finished jobs' progress
// records and follower snapshots, sent with their acknowledgement.
func (w *Worker) tidyJobs(qjobs []jobqueue.Job) rueidis.Commands {
	b := w.st.C.B()
	cmds := make(rueidis.Commands, 0, len(qjobs)+2)
	ids := make([]string, len(qjobs))
	for i, qj := range qjobs {
		j := parseJob(qj)
		cmds = append(cmds, b.Del().Key(schema.JobFollowers(j.author, j.ID)).Build())
		ids[i] = j.ID
	}
	q := schema.QueueAt(qjobs[0].Stream)
	return append(cmds,
		b.Hdel().Key(q.Progress).Field(ids...).Build(),
		b.Hdel().Key(q.Snapshots).Field(ids...).Build())
}

// valid reports whether a job read from the stream makes sense.
func (j job) valid() bool { return schema.JobValid(j.kind, j.post, j.author, j.of) }

// together reports whether the job is one that handleJobs delivers
// together with others (if its author has few followers).
func (j job) together() bool { return j.kind == schema.JobDeliver && !j.Resumed }

// followerSource returns the key to walk the job's followers in. A job
// of more than one batch walks a snapshot taken when it started: in the
// live set, an unfollow shifts every later rank down by one, and the
// walk, which goes by rank, would skip a follower. A worker taking the
// job over finds the snapshot already there (COPY does not replace it).
func (w *Worker) followerSource(ctx context.Context, j job, opts Options) (string, error) {
	b := w.st.C.B()
	live, snap := schema.Followers(j.author), schema.JobFollowers(j.author, j.ID)
	n, err := w.st.C.Do(ctx, b.Zcard().Key(live).Build()).AsInt64()
	if err != nil {
		return "", w.st.Wrap("delivery: followers", err)
	}
	if n <= int64(opts.Batch) && !j.Resumed {
		return live, nil
	}
	// The snapshot is registered first, so that maintenance can remove
	// it if the job vanishes without its worker cleaning up.
	err = w.st.C.Do(ctx, b.Hset().Key(j.q.Snapshots).FieldValue().FieldValue(j.ID, kernel.ID(j.author)).Build()).Error()
	if err != nil {
		return "", w.st.Wrap("delivery: register snapshot", err)
	}
	if err := w.st.C.Do(ctx, b.Copy().Source(live).Destination(snap).Build()).Error(); err != nil {
		return "", w.st.Wrap("delivery: snapshot followers", err)
	}
	return snap, nil
}

// runJob walks the author's followers in batches from where the job got
// to, and pushes the post onto (or takes it off) their timelines. After
// each batch of a long job it records how far it got, so a worker that
// takes the job over does not start again from the beginning, and
// renews its claim on the job, so that no other worker takes over a job
// that is slow but alive.
func (w *Worker) runJob(ctx context.Context, q *jobqueue.Queue, j job, opts Options) error {
	b := w.st.C.B()
	var done int64
	if j.Resumed { // only a job taken over can have progress to resume from
		var err error
		done, err = w.st.C.Do(ctx, b.Hget().Key(j.q.Progress).Field(j.ID).Build()).AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return w.st.Wrap("delivery: progress", err)
		}
	}
	if done == 0 {
		post, fanout, err := w.begin(ctx, &j)
		if err != nil || !fanout {
			return err
		}
		if post.Visibility == retwis.Direct { // to the few it mentions, not to the followers
			_, err := w.deliverBatch(ctx, j, post.Mentioned())
			return err
		}
	} else if j.kind == schema.JobBoost {
		if ok, err := w.readBoost(ctx, &j); err != nil || !ok {
			return err
		}
	}
	p := Progress{Job: j.ID, Kind: j.kind, Post: j.post, Done: int(done)}
	src, err := w.followerSource(ctx, j, opts)
	if err != nil {
		return err
	}
	for {
		followers, gone, err := w.nextFollowers(ctx, j, src, p.Done, opts.Batch)
		if err != nil || gone {
			return err // a post deleted before its delivery: nothing to do
		}
		if len(followers) == 0 {
			return nil
		}
		n, err := w.deliverBatch(ctx, j, followers)
		if err != nil {
			return err
		}
		p.Done += len(followers)
		p.Delivered += n
		last := len(followers) < opts.Batch // no progress worth recording then
		if !last {
			err := redisconn.FirstErr(w.st.C.DoMulti(ctx,
				b.Hset().Key(j.q.Progress).FieldValue().FieldValue(j.ID, strconv.Itoa(p.Done)).Build(),
				q.Touch(j.Job)))
			if err != nil {
				return w.st.Wrap("delivery: progress", err)
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

// begin does what a job does before it walks the followers (see
// publishGlobally, store.ReconcileEdit, countBoost, uncountBoost), and
// returns the post if it read it and whether the walk is to be made.
func (w *Worker) begin(ctx context.Context, j *job) (post index.Post, fanout bool, err error) {
	switch j.kind {
	case schema.JobDeliver:
		return w.publishGlobally(ctx, *j)
	case schema.JobEdit:
		if err := w.editCard(ctx, *j); err != nil {
			return post, false, err
		}
		return w.st.ReconcileEdit(ctx, j.post)
	case schema.JobBoost:
		fanout, err = w.countBoost(ctx, j)
		return post, fanout, err
	case schema.JobUnboost:
		return post, true, w.uncountBoost(ctx, *j)
	}
	return post, true, nil
}

// publishGlobally makes sure a deliver job's post, if listed, is on the
// global timeline (CreatePost pushed it there unless that node was
// failing over), enters it in its secondary indexes, and returns it and
// whether it is to be fanned out: not if it is gone, nor if it is a
// celebrity's. A post deleted while it was pushed is taken off again:
// its deletion may have swept the timeline first.
func (w *Worker) publishGlobally(ctx context.Context, j job) (post index.Post, fanout bool, err error) {
	b := w.st.C.B()
	post, flag, ok, err := index.ParseJobPost(j.post, w.st.C.Do(ctx, b.Hmget().Key(schema.Post(j.post)).Field(index.JobFields...).Build()))
	if err != nil {
		return post, false, w.st.Wrap("delivery: read post", err)
	}
	if ok && post.Visibility.Listed() {
		if err := w.pushGlobal(ctx, j.post); err != nil {
			return post, false, err
		}
		n, err := w.st.C.Do(ctx, b.Exists().Key(schema.Post(j.post)).Build()).AsInt64()
		if err != nil {
			return post, false, w.st.Wrap("delivery: post exists", err)
		}
		ok = n == 1
	}
	if !ok { // gone
		err := w.st.C.Do(ctx, b.Lrem().Key(schema.Timeline).Count(0).Element(kernel.ID(j.post)).Build()).Error()
		return post, false, w.st.Wrap("delivery: global timeline", err)
	}
	if err := w.index(ctx, []job{j}, map[int64]index.Post{j.post: post}); err != nil {
		return post, false, err
	}
	return post, flag != "0", nil
}

// nextFollowers reads the batch of followers from rank done on, and, for
// a deliver job, whether the post is gone (deleted before or while it
// was delivered), in one round trip.
func (w *Worker) nextFollowers(ctx context.Context, j job, src string, done, batch int) ([]int64, bool, error) {
	b := w.st.C.B()
	cmds := rueidis.Commands{b.Zrange().Key(src).Min(strconv.Itoa(done)).Max(strconv.Itoa(done + batch - 1)).Build()}
	pushes := j.kind == schema.JobDeliver || j.kind == schema.JobBoost
	if pushes {
		cmds = append(cmds, b.Exists().Key(schema.Post(j.post)).Build())
	}
	res := w.st.C.DoMulti(ctx, cmds...)
	followers, err := res[0].AsIntSlice()
	if err != nil {
		return nil, false, w.st.Wrap("delivery: followers", err)
	}
	if !pushes {
		return followers, false, nil
	}
	n, err := res[1].AsInt64()
	return followers, n == 0, w.st.Wrap("delivery: post exists", err)
}

// deliverBatch carries out the job for a batch of followers, in one
// pipeline, and returns how many it pushed to: it pushes the post onto
// the timelines of those who are active, takes it off, records the
// author among their followed celebrities, or tells them of its edit.
//
// A post deleted while it was pushed could come back through this
// batch (its undeliver job may have passed these followers already), so
// after pushing, the post is looked for again, and if it is gone the
// batch is undone.
func (w *Worker) deliverBatch(ctx context.Context, j job, followers []int64) (int, error) {
	if j.kind == schema.JobEdit { // the edited post's followers are told of the edit
		w.st.AnnounceEdit(ctx, j.post, followers)
		return len(followers), nil
	}
	reached, err := w.batchCmds(ctx, j.kind, j, followers)
	if err != nil || j.kind == schema.JobCelebrate || len(reached) == 0 {
		return len(reached), err
	}
	if j.kind == schema.JobUndeliver || j.kind == schema.JobUnboost {
		w.st.Announce(ctx, schema.EventDelete, posts.Each(reached, j.post))
		return len(reached), nil
	}
	n, err := w.st.C.Do(ctx, w.st.C.B().Exists().Key(schema.Post(j.post)).Build()).AsInt64()
	if err != nil {
		return 0, w.st.Wrap("delivery: post exists", err)
	}
	if n == 0 {
		undo := schema.JobUndeliver
		if j.kind == schema.JobBoost {
			undo = schema.JobUnboost
		}
		_, err := w.batchCmds(ctx, undo, j, reached)
		return 0, err
	}
	w.st.Announce(ctx, schema.EventUpdate, posts.Each(reached, j.post))
	return len(reached), nil
}

// batchCmds does, in one pipeline (a few for a delivery, see
// kernel.DB.Deliver), what a job of the given kind does to each of
// followers, and returns those it did it to: for a delivery, the active
// ones. Deliveries wait for replicas as Options.WaitReplicas asks (one
// WAIT per slot written), so that a job is done only once what it
// delivered would survive a failover; an undelivered post id or a
// celebrity noted that a failover loses is harmless (readers skip ids
// whose post is gone, and a celebrity is noted again at its next post).
func (w *Worker) batchCmds(ctx context.Context, kind string, j job, followers []int64) ([]int64, error) {
	if kind == schema.JobDeliver {
		ds := make([]kernel.Delivery, len(followers))
		for i, f := range followers {
			ds[i] = kernel.Delivery{UID: f, IDs: []int64{j.post}}
		}
		deliver := w.st.Deliver
		if j.Resumed { // an earlier attempt may have left ids out of place
			deliver = w.st.Redeliver
		}
		reached, err := deliver(ctx, w.horizon(), ds)
		if err != nil {
			return nil, w.st.Wrap("delivery: "+kind, err)
		}
		return reachedBy(followers, reached), nil
	}
	if kind == schema.JobBoost {
		return w.pushBoost(ctx, j, followers)
	}
	p, author := kernel.ID(j.post), kernel.ID(j.author)
	res := w.st.Pipeline(ctx, func() rueidis.Commands {
		b := w.st.C.B()
		cmds := make(rueidis.Commands, 0, len(followers))
		for _, f := range followers {
			switch kind {
			case schema.JobUndeliver:
				cmds = append(cmds, b.Lrem().Key(schema.Home(f)).Count(0).Element(p).Build())
			case schema.JobUnboost:
				cmds = append(cmds, kernel.UnboostHomeCmds(w.st.C, f, j.post)...)
			default:
				cmds = append(cmds, b.Sadd().Key(schema.FollowedCelebrities(f)).Member(author).Build())
			}
		}
		return cmds
	})
	if err := redisconn.FirstErr(res); err != nil {
		return nil, w.st.Wrap("delivery: "+kind, err)
	}
	return followers, nil
}

// horizon returns the time (unix) a user must have been seen since to
// be delivered to: fanout skips users away longer than InactiveAfter.
func (w *Worker) horizon() int64 { return time.Now().Add(-w.st.Opts.InactiveAfter).Unix() }

// reachedBy returns the followers that kernel.DB.Deliver reached.
func reachedBy(followers []int64, reached []bool) []int64 {
	out := followers[:0:0]
	for i, ok := range reached {
		if ok {
			out = append(out, followers[i])
		}
	}
	return out
}
