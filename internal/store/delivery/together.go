package delivery

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// audience is what deliverTogether learnt about the posts of its jobs.
type audience struct {
	gone      []int64              // posts deleted before their delivery
	fanned    []job                // jobs whose post goes to followers
	followers map[int64][]int64    // author -> followers, for fanned jobs
	long      []job                // jobs left to runJob: too many followers
	done      []job                // jobs with nothing to fan out (a celebrity's post)
	got       map[int64][]int64    // post -> the followers it was pushed to
	posts     map[int64]index.Post // post -> what its indexes need, for the posts of fanned and done jobs
}

// deliverTogether carries out fresh deliver jobs together, in a fixed
// number of round trips however many they are: the posts and their
// authors' followers are read in one pipeline; the listed posts go onto
// the global timeline in one script call; and each active follower (for
// a direct post: each user it mentions) gets all
// of the new posts meant for them in one push (kernel.DB.Deliver), so a
// backlog costs Redis one push per follower rather than one per follower
// and post. Then, as runJob does, posts deleted meanwhile are taken back and
// the others are marked delivered.
//
// It returns the jobs it leaves to be carried out one by one: those whose
// author has more than opts.Batch followers (they walk a snapshot in
// batches, recording progress).
func (w *Worker) deliverTogether(ctx context.Context, jobs []job, opts Options) (long []job, err error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	a, err := w.deliverAll(ctx, jobs, opts)
	left := make(map[string]bool, len(a.long))
	for _, j := range a.long {
		left[j.ID] = true
	}
	for _, j := range jobs {
		if !left[j.ID] {
			w.st.Metrics.Job(j.kind, j.post, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		for _, j := range append(a.fanned, a.done...) {
			opts.Progress(Progress{Job: j.ID, Kind: j.kind, Post: j.post,
				Done: len(a.followers[j.author]), Delivered: len(a.got[j.post])})
		}
	}
	return a.long, nil
}

// deliverAll does the work of deliverTogether.
func (w *Worker) deliverAll(ctx context.Context, jobs []job, opts Options) (audience, error) {
	a, err := w.readAudience(ctx, jobs, opts.Batch)
	if err != nil {
		return a, err
	}
	var listed []int64
	for _, j := range slices.Concat(a.fanned, a.long, a.done) {
		if a.posts[j.post].Visibility.Listed() {
			listed = append(listed, j.post)
		}
	}
	if err := w.pushGlobal(ctx, listed...); err != nil {
		return a, err
	}
	if err := w.index(ctx, append(slices.Clone(a.fanned), a.done...), a.posts); err != nil {
		return a, err
	}
	if a.got, err = w.pushTogether(ctx, a, opts.Batch); err != nil {
		return a, err
	}
	tagged, err := w.pushTagged(ctx, append(slices.Clone(a.fanned), a.done...), a.posts, opts.Batch)
	if err != nil {
		return a, err
	}
	for p, users := range tagged {
		a.got[p] = append(a.got[p], users...)
	}
	return a, w.settle(ctx, a)
}

// pushGlobal puts posts pids on the global timeline, waiting for the
// replicas as Options.WaitReplicas asks.
func (w *Worker) pushGlobal(ctx context.Context, pids ...int64) error {
	if len(pids) == 0 {
		return nil
	}
	err := redisconn.FirstErr(w.st.Replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.PushGlobalCmd(w.st.C, pids...)}
	}, schema.Timeline))
	return w.st.Wrap("delivery: global timeline", err)
}

// index enters the posts of jobs in their secondary indexes (see
// indexCmds) and on the timelines of the lists that hold their authors
// (read first, lists.Store.DeliverCmds), and queues the previews of
// their links (cardJobs), in one pipeline, notifying
// those they mention or answer now, moves their authors up among the
// users by activity, and marks their authors' entries in the directory
// for a refresh (their counts of posts this week changed).
func (w *Worker) index(ctx context.Context, jobs []job, posts map[int64]index.Post) error {
	now := time.Now().UnixMilli()
	listed := make([]index.Post, 0, len(jobs))
	for _, j := range jobs {
		listed = append(listed, posts[j.post])
	}
	toLists, err := w.lists.DeliverCmds(ctx, listed)
	if err != nil {
		return err
	}
	toCards, err := w.cardJobs(ctx, jobs, posts)
	if err != nil {
		return err
	}
	var notes []kernel.Notified
	err = redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
		cmds := slices.Concat(toLists, toCards)
		notes = notes[:0]
		for _, j := range jobs {
			p := posts[j.post]
			p.Noted = now
			cmds = append(cmds, index.Cmds(w.st.C, p)...)
			cmds = append(cmds, index.PostEventCmds(w.st.C, schema.EventUpdate, p)...)
			cmds = append(cmds, index.ActiveCmd(w.st.C, p))
			notes = append(notes, p.Notified()...)
		}
		if authors := authorsOf(jobs); len(authors) > 0 {
			cmds = append(cmds, w.st.C.B().Sadd().Key(schema.ExploreStale).Member(kernel.IDs(authors)...).Build())
		}
		return cmds
	}))
	if err == nil {
		w.st.Push(ctx, notes...)
	}
	return w.st.Wrap("delivery: index", err)
}

// authorsOf returns the authors of jobs, each once: whose counts of
// recent posts the jobs change.
func authorsOf(jobs []job) []int64 {
	var authors []int64
	seen := map[int64]bool{}
	for _, j := range jobs {
		if !seen[j.author] {
			seen[j.author], authors = true, append(authors, j.author)
		}
	}
	return authors
}

// readAudience reads, in one pipeline, each job's post (whether it is
// gone, whether it is fanned out) and the followers of each author, up
// to limit: an author with more is left to runJob.
func (w *Worker) readAudience(ctx context.Context, jobs []job, limit int) (audience, error) {
	b := w.st.C.B()
	cmds := make(rueidis.Commands, 0, 2*len(jobs))
	for _, j := range jobs {
		cmds = append(cmds, b.Hmget().Key(schema.Post(j.post)).Field(index.JobFields...).Build())
	}
	var authors []int64
	at := make(map[int64]int)
	for _, j := range jobs {
		if _, ok := at[j.author]; !ok {
			at[j.author] = len(cmds)
			authors = append(authors, j.author)
			cmds = append(cmds, b.Zrange().Key(schema.Followers(j.author)).Min("0").Max(strconv.Itoa(limit)).Build())
		}
	}
	res := w.st.C.DoMulti(ctx, cmds...)
	a := audience{followers: make(map[int64][]int64, len(authors)), posts: make(map[int64]index.Post, len(jobs))}
	for _, author := range authors {
		f, err := res[at[author]].AsIntSlice()
		if err != nil {
			return a, w.st.Wrap("delivery: followers", err)
		}
		a.followers[author] = f
	}
	for i, j := range jobs {
		post, flag, ok, err := index.ParseJobPost(j.post, res[i])
		if err != nil {
			return a, w.st.Wrap("delivery: read post", err)
		}
		a.posts[j.post] = post
		switch {
		case !ok:
			a.gone = append(a.gone, j.post)
		case flag == "0":
			a.done = append(a.done, j)
		case len(a.recipients(j)) > limit:
			a.long = append(a.long, j)
		default:
			a.fanned = append(a.fanned, j)
		}
	}
	return a, nil
}

// recipients returns whose home timelines j's post goes to: the users
// a direct post mentions, the author's followers for any other.
func (a audience) recipients(j job) []int64 {
	if p := a.posts[j.post]; p.Visibility == retwis.Direct {
		return p.Mentioned()
	}
	return a.followers[j.author]
}

// pushTogether pushes the fanned posts of a onto their active
// recipients' home timelines (see deliverCmd), each follower's posts in one call,
// batch followers per pipeline, and returns which followers each post
// was pushed to.
func (w *Worker) pushTogether(ctx context.Context, a audience, batch int) (map[int64][]int64, error) {
	var in inboxes
	for _, j := range a.fanned {
		in.add(j.post, a.recipients(j))
	}
	return w.pushInboxes(ctx, in, batch)
}

// inboxes are the posts bound for each of a set of users.
type inboxes struct {
	posts    map[int64][]int64 // user -> posts
	everyone []int64           // the users, in the order first met
}

// add puts post pid in the inboxes of users.
func (in *inboxes) add(pid int64, users []int64) {
	if in.posts == nil {
		in.posts = make(map[int64][]int64)
	}
	for _, u := range users {
		if _, ok := in.posts[u]; !ok {
			in.everyone = append(in.everyone, u)
		}
		in.posts[u] = append(in.posts[u], pid)
	}
}

// pushInboxes pushes each user's posts of in onto their home timeline
// if they are active, in one call (kernel.DB.Deliver), batch users per
// pipeline, announces them on the users' streams, and returns which
// users each post was pushed to.
func (w *Worker) pushInboxes(ctx context.Context, in inboxes, batch int) (map[int64][]int64, error) {
	horizon := w.horizon()
	got := make(map[int64][]int64)
	for start := 0; start < len(in.everyone); start += batch {
		chunk := in.everyone[start:min(start+batch, len(in.everyone))]
		ds := make([]kernel.Delivery, len(chunk))
		for i, f := range chunk {
			ds[i] = kernel.Delivery{UID: f, IDs: in.posts[f]}
		}
		res, err := w.st.Deliver(ctx, horizon, ds)
		if err != nil {
			return nil, w.st.Wrap("delivery: deliver", err)
		}
		reached := make(map[int64][]int64)
		for _, f := range reachedBy(chunk, res) {
			reached[f] = in.posts[f]
			for _, p := range in.posts[f] {
				got[p] = append(got[p], f)
			}
		}
		w.st.Announce(ctx, schema.EventUpdate, reached)
	}
	return got, nil
}

// settle finishes the jobs of a once their posts are pushed and indexed:
// a post deleted meanwhile is taken back off the timelines it reached
// and out of its indexes (its deletion may have passed them already), a
// post gone before its delivery off the global timeline, and every other
// post is marked delivered, all in two round trips (more for deleted
// posts).
func (w *Worker) settle(ctx context.Context, a audience) error {
	b := w.st.C.B()
	checked := append(slices.Clone(a.fanned), a.done...)
	cmds := make(rueidis.Commands, len(checked))
	for i, j := range checked {
		cmds[i] = b.Exists().Key(schema.Post(j.post)).Build()
	}
	var finished []job
	var errs []error
	gone := slices.Clone(a.gone)
	for i, r := range w.st.C.DoMulti(ctx, cmds...) {
		n, err := r.AsInt64()
		switch j := checked[i]; {
		case err != nil:
			return w.st.Wrap("delivery: post exists", err)
		case n == 0: // deleted meanwhile: its deletion may have passed these already
			_, err := w.batchCmds(ctx, schema.JobUndeliver, j, a.got[j.post])
			errs = append(errs, err, w.st.Unindex(ctx, a.posts[j.post]))
			gone = append(gone, j.post) // its deletion may have passed the global timeline before the push
		default:
			finished = append(finished, j)
		}
	}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	errs = append(errs, redisconn.FirstErr(w.st.Pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, 0, len(finished)+len(gone))
		for _, j := range finished {
			cmds = append(cmds, kernel.SetIfExists.Cmd(w.st.C, []string{schema.Post(j.post)}, schema.FieldDelivered, now))
		}
		for _, p := range gone {
			cmds = append(cmds, b.Lrem().Key(schema.Timeline).Count(0).Element(kernel.ID(p)).Build())
		}
		return cmds
	})))
	return w.st.Wrap("delivery: settle", errors.Join(errs...))
}
