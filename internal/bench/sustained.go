package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/loadtest"
)

// sustainedReport is what the sustained-posting scenario measured.
type sustainedReport struct {
	posting   loadtest.Result
	accepted  int64           // posts accepted (requests without an error)
	audience  float64         // mean followers of the posting users
	peak      int64           // the delivery backlog's peak, in jobs
	atStop    int64           // jobs queued when posting stopped
	drain     time.Duration   // from the backlog's first drop after posting until it was empty
	delivered time.Duration   // from the start of posting until the backlog was empty
	delays    []time.Duration // of each post, from made to delivered to its last follower, sorted
	idle      loadtest.Result // home pages of the readers before posting
	storm     loadtest.Result // home pages of the readers while posting
}

// stormReaders is how many connections, besides the posting ones, read
// home pages (each as a user of its own) before and during the posting.
const stormReaders = 8

// sustained posts from every connection for the scenario duration, each
// as its own user (so with the seeded network's follower distribution),
// and then waits for the delivery backlog to empty. What matters is posts
// reaching followers, not requests accepted: it reports both rates, the
// backlog's peak, and the rate at which timeline entries (a post times
// its author's followers) were written while the backlog drained. Other
// connections read home pages before and while the posting goes on, to
// show what a posting storm does to pages.
func (b *bench) sustained(ctx context.Context) error {
	if err := b.waitIdle(ctx); err != nil {
		return err
	}
	rep, err := b.measureSustained(ctx)
	if err != nil {
		return err
	}
	entries := float64(rep.accepted) * rep.audience
	drained := float64(rep.atStop) * rep.audience
	b.printf("\nsustained posting: %d connections for %s, each as its own user (%.1f followers on average)\n",
		b.opts.Connections, b.opts.Duration, rep.audience)
	b.printf("%-28s %12.0f/s  (%d posts, %d errors, p99 %s)\n", "posts accepted", rep.posting.RPS, rep.accepted,
		rep.posting.Errors, rep.posting.P99.Round(time.Millisecond))
	b.printf("%-28s %12.0f/s  (all delivered %s after the first post)\n", "posts fully delivered",
		float64(rep.accepted)/rep.delivered.Seconds(), rep.delivered.Round(time.Millisecond))
	b.printf("%-28s %12d jobs (%d when posting stopped)\n", "backlog peak", rep.peak, rep.atStop)
	b.printf("%-28s %12.0f/s  (about %.0f entries over the whole run)\n", "timeline entries written",
		entries/rep.delivered.Seconds(), entries)
	if n := len(rep.delays); n > 0 {
		b.printf("%-28s %12s p50, %s p99  (%d posts)\n", "post to its last follower",
			rep.delays[n/2].Round(time.Millisecond), rep.delays[n*99/100].Round(time.Millisecond), n)
	}
	if rep.atStop > 0 {
		b.printf("%-28s %12.0f/s  (the backlog left when posting stopped, drained in %s)\n", "  … while draining",
			drained/rep.drain.Seconds(), rep.drain.Round(time.Millisecond))
	}
	b.printf("%-28s %12s p50, %s p99, %.0f/s  (%d other connections, before posting)\n", "home page, idle",
		rep.idle.P50.Round(10*time.Microsecond), rep.idle.P99.Round(10*time.Microsecond), rep.idle.RPS, stormReaders)
	b.printf("%-28s %12s p50, %s p99, %.0f/s  (p99 %.2f× idle; %d errors)\n", "home page, while posting",
		rep.storm.P50.Round(10*time.Microsecond), rep.storm.P99.Round(10*time.Microsecond), rep.storm.RPS,
		float64(rep.storm.P99)/float64(max(rep.idle.P99, 1)), rep.idle.Errors+rep.storm.Errors)
	return nil
}

// measureSustained does the posting and the waiting of sustained.
func (b *bench) measureSustained(ctx context.Context) (sustainedReport, error) {
	var rep sustainedReport
	var err error
	authors, err := b.postingUsers(ctx)
	if err != nil {
		return rep, err
	}
	if rep.audience, err = b.audience(ctx, authors); err != nil {
		return rep, err
	}
	readers, err := b.readers(ctx)
	if err != nil {
		return rep, err
	}
	if rep.idle, err = readers(b.opts.Duration); err != nil {
		return rep, err
	}
	var peak atomic.Int64
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for sampleCtx.Err() == nil {
			if n, err := b.st.DeliveryBacklog(sampleCtx); err == nil && n > peak.Load() {
				peak.Store(n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	start := time.Now()
	var readErr error
	read := make(chan struct{})
	go func() { // the readers, while the others post
		defer close(read)
		rep.storm, readErr = readers(b.opts.Duration)
	}()
	rep.posting, err = b.load(ctx, func(conn int, rng *rand.Rand) loadtest.Request { return postRequest(conn, rng) }, b.opts.Duration)
	stopSampling()
	<-sampled
	<-read
	if err = errors.Join(err, readErr); err != nil {
		return rep, err
	}
	rep.accepted = rep.posting.Requests - rep.posting.Errors
	if rep.atStop, err = b.st.DeliveryBacklog(ctx); err != nil {
		return rep, err
	}
	b.printf("posting stopped: %d delivery jobs queued; waiting until they are done\n", rep.atStop)
	draining, err := b.waitDrained(ctx, rep.atStop)
	if err != nil {
		return rep, err
	}
	rep.drain, rep.delivered = time.Since(draining), time.Since(start)
	rep.peak = max(peak.Load(), rep.atStop)
	ids := make([]int64, len(authors))
	for i, u := range authors {
		ids[i] = u.ID
	}
	if rep.delays, err = b.st.DeliveryDelays(ctx, ids, start); err != nil {
		return rep, err
	}
	slices.Sort(rep.delays)
	return rep, nil
}

// waitDrained waits until the delivery backlog, of queued jobs when
// posting stopped, is empty, and returns when it began to shrink: the
// drain is timed from there, so that a worker started only then (see
// bench-sustained.sh) is not charged for starting.
func (b *bench) waitDrained(ctx context.Context, queued int64) (time.Time, error) {
	began := time.Now()
	for deadline := began.Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n, err := b.st.DeliveryBacklog(ctx)
		if err != nil {
			return began, err
		}
		if n >= queued && n > 0 {
			began = time.Now() // not shrinking yet
		}
		if n == 0 {
			return began, nil
		}
	}
	return began, fmt.Errorf("the delivery backlog is not empty after 30 minutes")
}

// readers logs in stormReaders users other than the posting ones and
// returns a load of their home pages for a duration.
func (b *bench) readers(ctx context.Context) (func(time.Duration) (loadtest.Result, error), error) {
	cookies := make([]string, stormReaders)
	for i := range cookies {
		name := "user" + strconv.Itoa(1+(b.opts.Connections+i)%b.users())
		cookie, err := loginAs(ctx, b.opts.URL, name, b.opts.Password)
		if err != nil {
			return nil, fmt.Errorf("sustained posting: log in as %s: %w", name, err)
		}
		cookies[i] = cookie
	}
	return func(d time.Duration) (loadtest.Result, error) {
		return loadtest.Run(ctx, loadtest.Options{
			BaseURL: b.opts.URL, Connections: stormReaders, Duration: d, Cookies: cookies, CookieName: retwis.SessionCookie,
			Next: func(int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: "/"} },
		})
	}, nil
}

// postingUsers returns the distinct users the connections post as.
func (b *bench) postingUsers(ctx context.Context) ([]retwis.User, error) {
	var users []retwis.User
	for i := range min(b.opts.Connections, b.users()) {
		u, err := b.st.UserByName(ctx, "user"+strconv.Itoa(1+i))
		if err != nil {
			return nil, fmt.Errorf("sustained posting: %w", err)
		}
		users = append(users, u)
	}
	return users, nil
}

// audience returns the mean follower count of users.
func (b *bench) audience(ctx context.Context, users []retwis.User) (float64, error) {
	var total int64
	for _, u := range users {
		prof, err := b.st.Profile(ctx, 0, u, retwis.Cursor{}, 1)
		if err != nil {
			return 0, fmt.Errorf("sustained posting: %w", err)
		}
		total += prof.Counts.Followers
	}
	return float64(total) / float64(len(users)), nil
}
