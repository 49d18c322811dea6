package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// audience is what deliverTogether learnt about the posts of its jobs.
type audience struct {
	gone      []int64           // posts deleted before their delivery
	fanned    []job             // jobs whose post goes to followers
	followers map[int64][]int64 // author -> followers, for fanned jobs
	long      []job             // jobs left to runJob: too many followers
	done      []job             // jobs with nothing to fan out (a celebrity's post)
	got       map[int64][]int64 // post -> the followers it was pushed to
}

// deliverTogether carries out fresh deliver jobs together, in a fixed
// number of round trips however many they are: the posts go onto the
// global timeline in one script call; the posts and their authors'
// followers are read in one pipeline; and each active follower gets all
// of the new posts meant for them in one pushIDs call, so a backlog
// costs Redis one call per follower rather than one per follower and
// post. Then, as runJob does, posts deleted meanwhile are taken back and
// the others are marked delivered.
//
// It returns the jobs it leaves to be carried out one by one: those whose
// author has more than opts.Batch followers (they walk a snapshot in
// batches, recording progress).
func (s *Store) deliverTogether(ctx context.Context, jobs []job, opts DeliveryOptions) (long []job, err error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	a, err := s.deliverAll(ctx, jobs, opts)
	left := make(map[string]bool, len(a.long))
	for _, j := range a.long {
		left[j.ID] = true
	}
	for _, j := range jobs {
		if !left[j.ID] {
			s.metrics.job(j, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		for _, j := range append(a.fanned, a.done...) {
			opts.Progress(DeliveryProgress{Job: j.ID, Kind: j.kind, Post: j.post,
				Done: len(a.followers[j.author]), Delivered: len(a.got[j.post])})
		}
	}
	return a.long, nil
}

// deliverAll does the work of deliverTogether.
func (s *Store) deliverAll(ctx context.Context, jobs []job, opts DeliveryOptions) (audience, error) {
	pids := make([]int64, len(jobs))
	for i, j := range jobs {
		pids[i] = j.post
	}
	if err := redisconn.FirstErr(s.replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{s.globalPushCmd(pids...)}
	}, schema.Timeline)); err != nil {
		return audience{}, s.wrap("delivery: global timeline", err)
	}
	a, err := s.readAudience(ctx, jobs, opts.Batch)
	if err != nil {
		return a, err
	}
	if a.got, err = s.pushTogether(ctx, a, opts.Batch); err != nil {
		return a, err
	}
	return a, s.settle(ctx, a)
}

// readAudience reads, in one pipeline, each job's post (whether it is
// gone, whether it is fanned out) and the followers of each author, up
// to limit: an author with more is left to runJob.
func (s *Store) readAudience(ctx context.Context, jobs []job, limit int) (audience, error) {
	b := s.c.B()
	cmds := make(rueidis.Commands, 0, 2*len(jobs))
	for _, j := range jobs {
		cmds = append(cmds, b.Hmget().Key(schema.Post(j.post)).Field(schema.FieldUserID, schema.FieldFanout).Build())
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
	res := s.c.DoMulti(ctx, cmds...)
	a := audience{followers: make(map[int64][]int64, len(authors))}
	for _, author := range authors {
		f, err := res[at[author]].AsIntSlice()
		if err != nil {
			return a, s.wrap("delivery: followers", err)
		}
		a.followers[author] = f
	}
	for i, j := range jobs {
		vals, err := res[i].ToArray()
		if err != nil {
			return a, s.wrap("delivery: read post", err)
		}
		flag, _ := vals[1].ToString()
		switch _, err := vals[0].ToString(); {
		case err != nil:
			a.gone = append(a.gone, j.post)
		case flag == "0":
			a.done = append(a.done, j)
		case len(a.followers[j.author]) > limit:
			a.long = append(a.long, j)
		default:
			a.fanned = append(a.fanned, j)
		}
	}
	return a, nil
}

// pushTogether pushes the fanned posts of a onto their active followers'
// home timelines (see deliverCmd), each follower's posts in one call,
// batch followers per pipeline, and returns which followers each post
// was pushed to.
func (s *Store) pushTogether(ctx context.Context, a audience, batch int) (map[int64][]int64, error) {
	inbox := make(map[int64][]int64) // follower -> posts
	var everyone []int64
	for _, j := range a.fanned {
		for _, f := range a.followers[j.author] {
			if _, ok := inbox[f]; !ok {
				everyone = append(everyone, f)
			}
			inbox[f] = append(inbox[f], j.post)
		}
	}
	horizon := s.horizon()
	got := make(map[int64][]int64, len(a.fanned))
	for start := 0; start < len(everyone); start += batch {
		chunk := everyone[start:min(start+batch, len(everyone))]
		homes := make([]string, len(chunk))
		for i, f := range chunk {
			homes[i] = schema.Home(f)
		}
		res := s.replicated(ctx, func() rueidis.Commands {
			cmds := make(rueidis.Commands, len(chunk))
			for i, f := range chunk {
				cmds[i] = s.deliverCmd(f, horizon, inbox[f]...)
			}
			return cmds
		}, homes...)
		if err := redisconn.FirstErr(res); err != nil {
			return nil, s.wrap("delivery: deliver", err)
		}
		for _, f := range reachedBy(chunk, res) {
			for _, p := range inbox[f] {
				got[p] = append(got[p], f)
			}
		}
	}
	return got, nil
}

// settle finishes the jobs of a once their posts are pushed: a post
// deleted meanwhile is taken back off the timelines it reached (its
// undeliver job may have passed them already), a post gone before its
// delivery off the global timeline, and every other post is marked
// delivered, all in two round trips.
func (s *Store) settle(ctx context.Context, a audience) error {
	b := s.c.B()
	cmds := make(rueidis.Commands, len(a.fanned))
	for i, j := range a.fanned {
		cmds[i] = b.Exists().Key(schema.Post(j.post)).Build()
	}
	finished := a.done
	var errs []error
	for i, r := range s.c.DoMulti(ctx, cmds...) {
		n, err := r.AsInt64()
		switch j := a.fanned[i]; {
		case err != nil:
			return s.wrap("delivery: post exists", err)
		case n == 0:
			_, err := s.batchCmds(ctx, schema.JobUndeliver, j, a.got[j.post])
			errs = append(errs, err)
		default:
			finished = append(finished, j)
		}
	}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	errs = append(errs, redisconn.FirstErr(s.pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, 0, len(finished)+len(a.gone))
		for _, j := range finished {
			cmds = append(cmds, setIfExists.cmd(s.c, []string{schema.Post(j.post)}, schema.FieldDelivered, now))
		}
		for _, p := range a.gone {
			cmds = append(cmds, b.Lrem().Key(schema.Timeline).Count(0).Element(id(p)).Build())
		}
		return cmds
	})))
	return s.wrap("delivery: settle", errors.Join(errs...))
}
